// Progressive enhancement only: every page works without this file.
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const input = document.getElementById(button.dataset.copy);
    if (!input) return;
    try {
      await navigator.clipboard.writeText(input.value);
      button.textContent = "Copied";
    } catch {
      input.select();
    }
  });
}

// A chosen image file is shown before the form is sent (as a data: address, which the pages'
// policy allows); the server still judges the file.
for (const input of document.querySelectorAll("input[type=file][data-preview]")) {
  const preview = document.getElementById(input.dataset.preview);
  if (!preview) continue;
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    preview.hidden = true;
    if (!file) return;
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      preview.src = String(reader.result);
      preview.hidden = false;
    });
    reader.readAsDataURL(file);
  });
}
