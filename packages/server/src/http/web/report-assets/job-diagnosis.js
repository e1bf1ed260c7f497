// The diagnosis on the job page: each claim with its evidence, linked to the charts. Clicking a
// claim (or one piece of evidence) shades the evidence's time window on the charts it concerns.
import { fill, h } from "./dom.js";
import { formatClock, formatPercent, formatTime } from "./format.js";

const ALL_CHARTS = ["memory", "cpu", "gpu", "gpuMemory"];

/** Which charts a piece of evidence is about, from its metric's name (all, when it names none). */
export function chartsForEvidence(evidence) {
  const metric = evidence.metric ?? "";
  if (/^(memory\.|pressure\.memory|processes\.)/.test(metric)) return ["memory"];
  if (/^(cpu\.|pressure\.cpu)/.test(metric)) return ["cpu"];
  if (metric.startsWith("gpus.")) return /memory/i.test(metric) ? ["gpuMemory"] : ["gpu"];
  return ALL_CHARTS;
}

/**
 * Draws the diagnosis into `slot`; `onSelect(evidenceList | null)` is called when a claim or an
 * evidence is chosen (null when it is chosen again, to clear).
 */
export function drawDiagnosis(slot, diagnosis, onSelect) {
  let active;
  const select = (item, evidence) => {
    const again = active === item;
    for (const el of slot.querySelectorAll(".finding.active")) el.classList.remove("active");
    for (const el of slot.querySelectorAll("[aria-pressed=true]")) el.setAttribute("aria-pressed", "false");
    active = again ? undefined : item;
    if (!again) {
      item.closest(".finding")?.classList.add("active");
      item.setAttribute("aria-pressed", "true");
    }
    onSelect(again ? null : evidence);
  };
  const findings = diagnosis.findings.map((finding, index) => {
    const timed = finding.evidence.filter((e) => e.window);
    const claim = h(
      "button",
      {
        type: "button",
        class: "claim",
        "aria-pressed": "false",
        dataset: { finding: String(index), kind: finding.kind },
      },
      finding.claim,
      timed.length > 0 ? h("span", { class: "hint" }, "show on the charts") : null,
    );
    claim.addEventListener("click", () => select(claim, finding.evidence));
    return h(
      "li",
      { class: `finding ${finding.severity}` },
      h(
        "div",
        { class: "toolbar" },
        h("span", { class: `badge ${finding.severity}` }, finding.severity),
        h(
          "span",
          { class: "muted small" },
          `${finding.kind.replaceAll("_", " ")} · confidence ${formatPercent(finding.confidence, 0)}`,
        ),
      ),
      claim,
      evidenceList(finding.evidence, select),
    );
  });
  fill(
    slot,
    h(
      "p",
      {},
      h(
        "span",
        { class: `badge ${diagnosis.causeDetermined ? "ok" : "warning"}` },
        diagnosis.causeDetermined ? "cause determined" : "cause not determined",
      ),
      " ",
      diagnosis.summary,
    ),
    diagnosis.findings.length > 0
      ? h("ul", { class: "findings" }, findings)
      : h("p", { class: "muted" }, "No findings: nothing stood out."),
    unseenList(diagnosis.unseen),
    diagnosis.prose
      ? h(
          "details",
          {},
          h("summary", {}, "In other words (language model; adds no claims)"),
          h("p", {}, diagnosis.prose),
        )
      : null,
    h("p", { class: "muted small" }, `Diagnosed ${formatTime(diagnosis.generatedAt)}`),
  );
}

// The first few pieces of evidence are enough to follow a claim; the rest fold away.
const EVIDENCE_SHOWN = 5;

function evidenceList(evidence, select) {
  const items = evidence.map((e) => evidenceItem(e, select));
  if (items.length <= EVIDENCE_SHOWN + 1) return h("ul", { class: "evidence" }, items);
  return [
    h("ul", { class: "evidence" }, items.slice(0, EVIDENCE_SHOWN)),
    h(
      "details",
      { class: "more-evidence" },
      h("summary", {}, `${items.length - EVIDENCE_SHOWN} more pieces of evidence`),
      h("ul", { class: "evidence" }, items.slice(EVIDENCE_SHOWN)),
    ),
  ];
}

function evidenceItem(evidence, select) {
  const where = [
    evidence.source,
    evidence.metric,
    evidence.node,
    evidence.step,
    evidence.gpuIndex !== undefined ? `GPU ${evidence.gpuIndex}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(" · ");
  let windowButton = null;
  if (evidence.window) {
    windowButton = h(
      "button",
      { type: "button", class: "window", "aria-pressed": "false", title: "Shade this window on the charts" },
      evidence.window.start === evidence.window.end
        ? formatClock(evidence.window.start)
        : `${formatClock(evidence.window.start)}–${formatClock(evidence.window.end)}`,
    );
    windowButton.addEventListener("click", () => select(windowButton, [evidence]));
  }
  return h(
    "li",
    {},
    h("span", { class: "kind" }, evidence.kind),
    h(
      "span",
      {},
      evidence.text,
      h("span", { class: "muted" }, ` (${where})`),
      evidence.line ? h("code", { class: "mono" }, ` ${evidence.line}`) : null,
    ),
    windowButton,
  );
}

function unseenList(unseen) {
  if (unseen.length === 0) return null;
  return h(
    "div",
    { class: "notice warning" },
    h("strong", {}, "Could not be seen: "),
    h(
      "ul",
      {},
      unseen.map((u) => h("li", {}, h("code", {}, u.source), ` ${u.reason}`)),
    ),
  );
}
