// The shadow-mode readiness verdict of an accuracy report, shared by the overview and accuracy pages.
import { h } from "./dom.js";
import { formatTime } from "./format.js";

/** The verdict block: ready or not, the mode, and every reason the server gave. */
export function readinessVerdict(report) {
  const { ready, reasons } = report.readiness;
  const mode =
    report.mode === "shadow"
      ? `Shadow mode${report.shadowUntil ? ` until ${formatTime(report.shadowUntil)}` : ""}: predictions are recorded, nobody sees them.`
      : "Live: recommendations are handed out.";
  return h(
    "div",
    { class: "verdict", id: "readiness-verdict", dataset: { ready: String(ready) } },
    h(
      "div",
      { class: `mark ${ready ? "ready" : "not-ready"}` },
      ready ? "Ready to go live" : "Not ready yet",
    ),
    h(
      "div",
      {},
      h("div", {}, mode),
      reasons.length > 0
        ? h(
            "ul",
            {},
            reasons.map((r) => h("li", {}, r)),
          )
        : null,
      h("div", { class: "muted small" }, `Report generated ${formatTime(report.generatedAt)}`),
    ),
  );
}
