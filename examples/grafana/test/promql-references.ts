/**
 * The metric names and label names a PromQL expression (or a Grafana `label_values(...)` variable
 * query) refers to, found by a small tokenizer rather than a full PromQL parser: enough to check a
 * dashboard against the metrics that exist, and strict enough to refuse what it cannot read.
 *
 * An identifier is a metric name unless it is a function or aggregation (followed by `(`), a
 * keyword (`by`, `without`, `on`, `ignoring`, `group_left`, `group_right`, `bool`, `offset`, `and`,
 * `or`, `unless`), a label name (inside `{...}` or in a `by (...)`-style list) or part of a range
 * `[...]`. Strings, numbers and Grafana variables (`$user`, `${user}`, `$__rate_interval`) are
 * skipped.
 */

/** One vector selector: `metric{label="v", ...}` or a bare `{label="v", ...}`. */
export interface SelectorReference {
  /** Undefined for a selector that names no metric. */
  metric?: string;
  /** Label names its matchers use (without `__name__`). */
  labels: string[];
  /** Position in the token stream, to tell which aggregation it sits in. */
  at: number;
}

/** A list of label names after `by`, `without`, `on`, `ignoring`, `group_left` or `group_right`. */
export interface GroupingReference {
  clause: string;
  labels: string[];
  /** Token range of the selectors it applies to: an aggregation's argument, or the whole expression. */
  from: number;
  to: number;
}

/** What {@link promqlReferences} found. */
export interface PromqlReferences {
  selectors: SelectorReference[];
  groupings: GroupingReference[];
}

interface Token {
  kind: "ident" | "string" | "number" | "variable" | "range" | "punct";
  text: string;
}

const keywords = new Set(["bool", "offset", "and", "or", "unless", "atan2"]);
const groupingClauses = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);
const aggregations = new Set([
  "sum",
  "min",
  "max",
  "avg",
  "group",
  "stddev",
  "stdvar",
  "count",
  "count_values",
  "bottomk",
  "topk",
  "quantile",
  "limitk",
  "limit_ratio",
]);

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${i} of ${JSON.stringify(expr)}`);
  };
  while (i < expr.length) {
    const rest = expr.slice(i);
    const space = /^(\s+|#[^\n]*)/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const c = expr[i];
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < expr.length && expr[j] !== c) j += c !== "`" && expr[j] === "\\" ? 2 : 1;
      if (j >= expr.length) fail("unterminated string");
      tokens.push({ kind: "string", text: expr.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    if (c === "[") {
      const j = expr.indexOf("]", i);
      if (j < 0) fail("unterminated range");
      tokens.push({ kind: "range", text: expr.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    const variable = /^(\$\{[^}]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*)/.exec(rest);
    if (variable) {
      tokens.push({ kind: "variable", text: variable[0] });
      i += variable[0].length;
      continue;
    }
    const ident = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest);
    if (ident) {
      tokens.push({ kind: "ident", text: ident[0] });
      i += ident[0].length;
      continue;
    }
    const number = /^(0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?[a-z]*)/.exec(rest);
    if (number) {
      tokens.push({ kind: "number", text: number[0] });
      i += number[0].length;
      continue;
    }
    const punct = /^(=~|!~|!=|==|<=|>=|[(){},=<>+\-*/%^@])/.exec(rest);
    if (!punct) fail(`unexpected character ${JSON.stringify(c)}`);
    tokens.push({ kind: "punct", text: punct![0] });
    i += punct![0].length;
  }
  return tokens;
}

/** Index of the `)` that closes the `(` at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].text === "(" && tokens[i].kind === "punct") depth++;
    if (tokens[i].text === ")" && tokens[i].kind === "punct" && --depth === 0) return i;
  }
  throw new Error("unbalanced parentheses");
}

/** Reads `( label, label, ... )` at `open`; returns the labels and the index after `)`. */
function labelList(tokens: Token[], open: number): { labels: string[]; next: number } {
  if (tokens[open]?.text !== "(") throw new Error(`expected "(" after a grouping clause`);
  const end = closing(tokens, open);
  const labels = tokens
    .slice(open + 1, end)
    .filter((t) => t.text !== ",")
    .map((t) => {
      if (t.kind !== "ident") throw new Error(`expected a label name in a grouping list, got ${t.text}`);
      return t.text;
    });
  return { labels, next: end + 1 };
}

/** Reads `{ matcher, ... }` at `open`; returns label names, a `__name__="x"` metric and the index after `}`. */
function matchers(tokens: Token[], open: number): { labels: string[]; metric?: string; next: number } {
  const labels: string[] = [];
  let metric: string | undefined;
  let i = open + 1;
  while (tokens[i] && tokens[i].text !== "}") {
    const [label, op, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (label?.kind !== "ident" || !["=", "!=", "=~", "!~"].includes(op?.text) || value?.kind !== "string")
      throw new Error(`expected label matchers inside {...}`);
    if (label.text === "__name__") {
      if (op.text !== "=") throw new Error("a __name__ matcher other than = cannot be checked");
      metric = value.text;
    } else labels.push(label.text);
    i += 3;
    if (tokens[i]?.text === ",") i++;
  }
  if (!tokens[i]) throw new Error("unterminated label matchers");
  return { labels, metric, next: i + 1 };
}

/**
 * The metrics and labels an expression refers to.
 *
 * @throws {Error} for what the tokenizer cannot read (unbalanced brackets, unknown characters,
 *   regular-expression `__name__` matchers).
 * @example
 * ```ts
 * promqlReferences('sum by (user_name) (rate(jobsight_job_cpu_time_seconds_total{jobsight_cluster="a"}[5m]))');
 * // selectors: [{ metric: "jobsight_job_cpu_time_seconds_total", labels: ["jobsight_cluster"] }],
 * // groupings: [{ clause: "by", labels: ["user_name"], ... }]
 * ```
 */
export function promqlReferences(expr: string): PromqlReferences {
  const tokens = tokenize(expr);
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === "punct" && t.text === "(") depth++;
    if (t.kind === "punct" && t.text === ")" && --depth < 0) break;
  }
  if (depth !== 0) throw new Error(`unbalanced parentheses in ${JSON.stringify(expr)}`);
  const selectors: SelectorReference[] = [];
  const groupings: GroupingReference[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i];
    const next = tokens[i + 1];
    if (token.kind === "punct" && token.text === "{") {
      const found = matchers(tokens, i);
      selectors.push({ metric: found.metric, labels: found.labels, at: i });
      i = found.next;
      continue;
    }
    if (token.kind !== "ident") {
      i++;
      continue;
    }
    if (groupingClauses.has(token.text) && next?.text === "(") {
      const list = labelList(tokens, i + 1);
      const vectorMatching = !["by", "without"].includes(token.text);
      // A by/without clause before the argument belongs to the aggregation whose argument follows;
      // after the argument, to the aggregation whose argument just closed. Vector matching clauses
      // (on, ignoring, group_*) are checked against every selector of the expression.
      let from = 0;
      let to = tokens.length;
      if (!vectorMatching) {
        if (tokens[list.next]?.text === "(") [from, to] = [list.next, closing(tokens, list.next)];
        else {
          const argumentEnd = i - 1;
          let depth = 0;
          let open = argumentEnd;
          for (; open >= 0; open--) {
            if (tokens[open].text === ")") depth++;
            if (tokens[open].text === "(" && --depth === 0) break;
          }
          [from, to] = [open, argumentEnd];
        }
      }
      groupings.push({ clause: token.text, labels: list.labels, from, to });
      i = list.next;
      continue;
    }
    const bareGroupModifier =
      (token.text === "group_left" || token.text === "group_right") && next?.text !== "(";
    if (
      bareGroupModifier ||
      keywords.has(token.text) ||
      next?.text === "(" ||
      (aggregations.has(token.text) && (next?.text === "by" || next?.text === "without"))
    ) {
      // A function, an aggregation (its clause is read next) or a keyword.
      i++;
      continue;
    }
    if (next?.text === "{") {
      const found = matchers(tokens, i + 1);
      if (found.metric !== undefined) throw new Error(`${token.text} has a second name in __name__`);
      selectors.push({ metric: token.text, labels: found.labels, at: i });
      i = found.next;
      continue;
    }
    selectors.push({ metric: token.text, labels: [], at: i });
    i++;
  }
  return { selectors, groupings };
}

/**
 * The references of a Grafana Prometheus variable query: `label_values(label)`,
 * `label_values(selector, label)` or `query_result(expr)`.
 *
 * @throws {Error} for any other kind of variable query.
 * @example
 * ```ts
 * variableQueryReferences('label_values({jobsight_cluster=~"$cluster"}, user_name)');
 * ```
 */
export function variableQueryReferences(query: string): PromqlReferences {
  const labelValues = /^\s*label_values\(\s*(?:(.+),\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$/s.exec(query);
  if (labelValues) {
    const [, selector, label] = labelValues;
    if (selector === undefined) return { selectors: [{ labels: [label], at: 0 }], groupings: [] };
    const inner = promqlReferences(selector);
    return {
      selectors: inner.selectors,
      groupings: [...inner.groupings, { clause: "label_values", labels: [label], from: 0, to: Infinity }],
    };
  }
  const queryResult = /^\s*query_result\((.+)\)\s*$/s.exec(query);
  if (queryResult) return promqlReferences(queryResult[1]);
  throw new Error(`unsupported variable query ${JSON.stringify(query)}`);
}
