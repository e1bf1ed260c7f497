/** Shows a unified diff line by line, added and removed lines marked for colour. */
export function renderDiff(pre: HTMLElement, diff: string): void {
  pre.replaceChildren();
  if (diff === "") {
    pre.textContent = "No change to suggest: the submission already asks for what the evidence supports.";
    return;
  }
  for (const line of diff.replace(/\n$/, "").split("\n")) {
    const span = document.createElement("span");
    if (line.startsWith("@@")) span.className = "hunk";
    else if (line.startsWith("+") && !line.startsWith("+++")) span.className = "add";
    else if (line.startsWith("-") && !line.startsWith("---")) span.className = "del";
    span.textContent = `${line}\n`;
    pre.append(span);
  }
}
