// Progressive enhancement only: every page works without this file.
// A copy button copies a field's value or an element's text; one that is useless without this
// script is sent hidden, and shown here.
for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.dataset.copy);
  if (!source) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText("value" in source ? source.value : source.textContent.trim());
      button.textContent = "Copied";
    } catch {
      if ("select" in source) source.select();
      else getSelection()?.selectAllChildren(source);
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
