// The import page's progress bar, kept current without reloading the page. Without this file the
// page reloads itself every few seconds instead (a <noscript> refresh).
const bar = document.querySelector("progress[data-status-url]");
if (bar) {
  const text = document.getElementById("import-progress-text");
  const poll = async () => {
    try {
      const res = await fetch(bar.dataset.statusUrl, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      if (res.ok) {
        const s = await res.json();
        bar.max = s.max;
        bar.value = s.value;
        if (text)
          text.textContent = `${s.done} ${s.done_label}, ${s.failed} failed, ${s.invalid} invalid, of ${s.max} ${s.max === 1 ? "row" : "rows"}`;
        // The finished page shows the result file and the final counts: the server renders it.
        if (s.state !== "running") {
          window.location.reload();
          return;
        }
      }
    } catch {
      // A network hiccup: try again at the next tick.
    }
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 1000);
}
