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
    const note = document.getElementById(input.dataset.chosenHides ?? "");
    if (note) note.hidden = file !== undefined;
    if (!file) return;
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      preview.src = String(reader.result);
      preview.hidden = false;
    });
    reader.readAsDataURL(file);
  });
}

// A file past its form's limit is refused as soon as it is chosen, so the form is not sent for
// nothing; without this script the server refuses it and shows the form again, as typed.
for (const input of document.querySelectorAll("input[type=file][data-max-bytes]")) {
  const max = Number(input.dataset.maxBytes);
  const mib = (bytes) => `${(bytes / 1048576).toLocaleString("en", { maximumFractionDigits: 1 })} MiB`;
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    const over = file !== undefined && file.size > max;
    input.setCustomValidity(
      over ? `This file is ${mib(file.size)}: it may be at most ${mib(max)}. Choose a smaller one.` : "",
    );
    if (over) input.reportValidity();
  });
}
