// Money on the waste page: the site's rates applied to unused and idle hours, and what the
// recorded advice would have saved. Without rates the server sends no cost and nothing is shown.
import { h } from "./dom.js";
import { formatNumber } from "./format.js";

const formats = new Map();

/** An amount in the currency's own notation, e.g. €12.50. */
export function formatMoney(amount, currency) {
  if (!formats.has(currency))
    formats.set(currency, new Intl.NumberFormat(undefined, { style: "currency", currency }));
  return formats.get(currency).format(amount);
}

// A resource without a rate is "not priced", never 0.
function moneyCell(cost, key, currency) {
  if (!cost) return "–";
  if (cost[key] !== undefined)
    return formatMoney(cost[key], currency) + (cost.unpriced?.includes(key) ? "+" : "");
  return cost.unpriced?.includes(key) ? "not priced" : "–";
}

/** The table columns of a priced resource (`cores`, `memory` or `gpus`): unused and idle cost. */
export function moneyColumns(key, sampled, currency) {
  const columns = [
    {
      label: `Unused (${currency})`,
      class: "num money",
      value: (r) => moneyCell(r.row.cost?.unused, key, currency),
    },
  ];
  if (sampled)
    columns.push({
      label: `Idle (${currency})`,
      class: "num money",
      value: (r) => moneyCell(r.row.cost?.idle, key, currency),
    });
  return columns;
}

/** The money of the resource's unused hours over all rows, for the summary line. */
export function unusedMoney(rows, key, currency) {
  const priced = rows.filter((r) => r.row.cost?.unused[key] !== undefined);
  if (priced.length === 0) return "";
  const total = priced.reduce((sum, r) => sum + r.row.cost.unused[key], 0);
  return ` Unused, in money: ${formatMoney(total, currency)}.`;
}

/** What the advice would have saved over the window, in amounts and, with rates, in money. */
export function savingsSection(savings, currency) {
  if (!savings) return h("p", { class: "muted" }, "No savings reported.");
  const day = (iso) => iso.slice(0, 10);
  const amounts = [
    `${formatNumber(savings.coreHours)} core·h`,
    `${formatNumber(savings.memoryGibHours)} GiB·h of memory`,
    `${formatNumber(savings.gpuHours)} GPU·h`,
  ].join(", ");
  const cost = savings.cost;
  const parts = [
    ["cores", "cores"],
    ["memory", "memory"],
    ["gpus", "GPUs"],
  ]
    .filter(([key]) => cost?.[key] !== undefined)
    .map(([key, name]) => `${name} ${formatMoney(cost[key], currency)}`);
  return h(
    "div",
    { class: "savings" },
    h(
      "p",
      {},
      cost && currency ? h("strong", { class: "money" }, formatMoney(cost.total, currency)) : null,
      cost && currency
        ? ` (${parts.join(", ")}${cost.unpriced?.length ? `; ${cost.unpriced.join(", ")} not priced` : ""}): `
        : "",
      amounts,
      ` from ${day(savings.from)} to ${day(savings.to)}.`,
    ),
    h(
      "p",
      { class: "muted small" },
      `${savings.jobsWithAdvice} of ${savings.jobs} ended jobs had advice asking for less than they requested; each saves what it asked for above the advice, never below what it used.`,
      savings.truncated ? " More jobs ended than were looked at: this is a lower bound." : "",
      cost ? "" : " No rates are configured (cost.* of the server): amounts only.",
    ),
  );
}
