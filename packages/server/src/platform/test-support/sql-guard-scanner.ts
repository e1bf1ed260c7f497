import { createRequire } from "node:module";
import type * as T from "typescript";

// Loaded through Node's own require: the compiler is one 9 MB CommonJS file that the test
// runner's module transform would otherwise process on every run.
const ts = createRequire(import.meta.url)("typescript") as typeof T;

/** SQL text built from something that is not a parameter, a constant or a quoted identifier. */
export type SqlGuardFinding = {
  file: string;
  /** 1-based line of the interpolated expression. */
  line: number;
  /** The expression as written, e.g. `name` or `where`. */
  expression: string;
  /** The source line, trimmed. */
  source: string;
};

// Upper-case SQL keywords (the house style writes SQL keywords in capitals, prose does not).
const SQL_KEYWORDS =
  /\b(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|WHERE|AND|OR|ORDER\s+BY|GROUP\s+BY|LIMIT|OFFSET|VALUES|CREATE|DROP|ALTER|TRUNCATE|COPY|RETURNING|JOIN|SET|FROM|INTO)\b/;

/** The identifier-quoting helpers whose output may be interpolated (see `sql-identifier.ts`). */
export const IDENTIFIER_HELPERS: ReadonlySet<string> = new Set([
  "sqlIdentifier",
  "sqlIdentifiers",
  "sqlQualifiedIdentifier",
  "sqlTimestampLiteral",
  "escapeIdentifier",
]);

/** A comment on the line (or the line above) that accepts an interpolation, with the reason after it. */
export const ALLOW_MARKER = /sql-guard-allow:\s*\S/;

const SCREAMING_CASE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

/**
 * Finds SQL built by template interpolation or `+` concatenation of anything but:
 * - the identifier helpers ({@link IDENTIFIER_HELPERS}, e.g. `${sqlIdentifier(name)}`);
 * - positional placeholders, `$${n}` (a `$` right before the interpolation, numeric expression);
 * - module constants in SCREAMING_CASE declared `const` at the top of the file or imported
 *   (`${COLUMNS}`, `${JOB_COLUMNS.join(", ")}`), whose text is fixed when the module loads;
 * - `CONSTANT.map((c) => \`…${c}…\`).join(", ")` and calls of SCREAMING_CASE module functions with
 *   literal arguments only: text derived from constants alone;
 * - literals, and conditionals or nested templates made only of the above;
 * - identifiers bound by a `const` (in an enclosing block or the module) whose initializer is
 *   itself safe, e.g. `const column = asc ? "submitted_at" : "ended_at"`;
 * - anything on a line carrying (or following a line carrying) `sql-guard-allow: <reason>`, the
 *   documented escape for query builders whose parts are parameterised by construction.
 * A template or concatenation counts as SQL when its literal text holds an upper-case SQL keyword.
 *
 * @example
 * ```ts
 * scanSqlSource("a.ts", "pool.query(`SELECT * FROM jobs WHERE id = ${id}`)"); // [{ line: 1, expression: "id", … }]
 * ```
 */
export function scanSqlSource(file: string, text: string): SqlGuardFinding[] {
  // Parsing is the slow part; a file without any upper-case SQL keyword cannot hold SQL.
  if (!SQL_KEYWORDS.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const constants = moduleConstants(source);
  const findings: SqlGuardFinding[] = [];
  const lines = text.split("\n");
  const report = (node: T.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (ALLOW_MARKER.test(lines[line - 1] ?? "") || ALLOW_MARKER.test(lines[line - 2] ?? "")) return;
    findings.push({ file, line, expression: node.getText(source), source: (lines[line - 1] ?? "").trim() });
  };

  const visit = (node: T.Node): void => {
    if (ts.isTemplateExpression(node) && SQL_KEYWORDS.test(templateText(node))) {
      checkTemplate(node, constants, report);
    } else if (isConcatenationRoot(node)) {
      const parts = flattenConcatenation(node);
      const literal = parts
        .filter(isStringLiteralLike)
        .map((p) => p.text)
        .join(" ");
      if (SQL_KEYWORDS.test(literal)) {
        for (const part of parts)
          if (!isStringLiteralLike(part) && !isSafe(part, constants, "")) report(part);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function checkTemplate(
  node: T.TemplateExpression,
  constants: Set<string>,
  report: (n: T.Node) => void,
): void {
  let before = node.head.text;
  for (const span of node.templateSpans) {
    if (!isSafe(span.expression, constants, before)) report(span.expression);
    before = span.literal.text;
  }
}

function isSafe(expr: T.Expression, constants: Set<string>, literalBefore: string): boolean {
  const e = unwrap(expr);
  if (isStringLiteralLike(e) || ts.isNumericLiteral(e)) return true;
  if (literalBefore.endsWith("$")) return isNumericExpression(e);
  if (ts.isConditionalExpression(e))
    return isSafe(e.whenTrue, constants, "") && isSafe(e.whenFalse, constants, "");
  if (ts.isTemplateExpression(e)) {
    let before = e.head.text;
    for (const span of e.templateSpans) {
      if (!isSafe(span.expression, constants, before)) return false;
      before = span.literal.text;
    }
    return true;
  }
  if (ts.isCallExpression(e) && IDENTIFIER_HELPERS.has(calleeName(e.expression))) return true;
  if (ts.isIdentifier(e) && !resolving.has(e.text)) {
    const initializer = localConstInitializer(e);
    if (initializer) {
      resolving.add(e.text);
      try {
        if (isSafe(initializer, constants, "")) return true;
      } finally {
        resolving.delete(e.text);
      }
    }
  }
  return isConstant(e, constants);
}

// Names whose `const` initializer is being checked, so a self-reference cannot loop.
const resolving = new Set<string>();

// The initializer of the `const` an identifier refers to, found by walking out through the
// enclosing blocks; `undefined` when the name is a parameter, a `let`/`var`, a destructured or
// loop binding, or not declared in this file (none of which is known to be fixed text).
function localConstInitializer(id: T.Identifier): T.Expression | undefined {
  for (let node: T.Node | undefined = id.parent; node; node = node.parent) {
    if (ts.isFunctionLike(node) && node.parameters.some((p) => binds(p.name, id.text))) return undefined;
    if (
      (ts.isForOfStatement(node) || ts.isForInStatement(node) || ts.isForStatement(node)) &&
      node.initializer
    ) {
      if (
        ts.isVariableDeclarationList(node.initializer) &&
        node.initializer.declarations.some((d) => binds(d.name, id.text))
      ) {
        return undefined;
      }
    }
    if (!(ts.isBlock(node) || ts.isSourceFile(node) || ts.isModuleBlock(node) || ts.isCaseClause(node)))
      continue;
    for (const statement of node.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const d of statement.declarationList.declarations) {
        if (!binds(d.name, id.text)) continue;
        const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
        return isConst && ts.isIdentifier(d.name) ? d.initializer : undefined;
      }
    }
  }
  return undefined;
}

function binds(name: T.BindingName, text: string): boolean {
  if (ts.isIdentifier(name)) return name.text === text;
  return name.elements.some((el) => !ts.isOmittedExpression(el) && binds(el.name, text));
}

function isConstant(e: T.Expression, constants: Set<string>): boolean {
  e = unwrap(e);
  if (ts.isIdentifier(e)) return SCREAMING_CASE.test(e.text) && constants.has(e.text);
  if (ts.isPropertyAccessExpression(e)) return isConstant(e.expression, constants);
  if (ts.isElementAccessExpression(e))
    return isStringLiteralLike(e.argumentExpression) && isConstant(e.expression, constants);
  if (!ts.isCallExpression(e)) return false;
  const callee = unwrap(e.expression);
  if (ts.isIdentifier(callee)) {
    return (
      isConstant(callee, constants) &&
      e.arguments.every((a) => isStringLiteralLike(a) || ts.isNumericLiteral(a))
    );
  }
  if (!ts.isPropertyAccessExpression(callee)) return false;
  if (callee.name.text === "join") {
    return e.arguments.every(isStringLiteralLike) && isConstant(callee.expression, constants);
  }
  if (callee.name.text === "map" && e.arguments.length === 1 && isConstant(callee.expression, constants)) {
    return isConstantMapper(e.arguments[0], constants);
  }
  return false;
}

// `(c) => \`${c} = excluded.${c}\``: the element stands in for a constant inside the body.
function isConstantMapper(fn: T.Expression, constants: Set<string>): boolean {
  if (!ts.isArrowFunction(fn) || !ts.isExpression(fn.body)) return false;
  const inner = new Set(constants);
  for (const p of fn.parameters) {
    if (!ts.isIdentifier(p.name)) return false;
    inner.add(p.name.text);
  }
  const body = unwrap(fn.body);
  if (ts.isIdentifier(body)) return inner.has(body.text);
  if (!ts.isTemplateExpression(body)) return isSafe(body, inner, "");
  return body.templateSpans.every((span) => {
    const x = unwrap(span.expression);
    return (ts.isIdentifier(x) && inner.has(x.text)) || isSafe(x, inner, "");
  });
}

// `$${n}`, `$${params.length}`, `$${n - 1}`: the parameter number, never text.
function isNumericExpression(e: T.Expression): boolean {
  e = unwrap(e);
  if (ts.isNumericLiteral(e) || ts.isIdentifier(e)) return true;
  if (ts.isPropertyAccessExpression(e)) return true;
  if (ts.isBinaryExpression(e)) {
    const op = e.operatorToken.kind;
    const arithmetic = [ts.SyntaxKind.PlusToken, ts.SyntaxKind.MinusToken, ts.SyntaxKind.AsteriskToken];
    return arithmetic.includes(op) && isNumericExpression(e.left) && isNumericExpression(e.right);
  }
  return false;
}

function moduleConstants(source: T.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && statement.declarationList.flags & ts.NodeFlags.Const) {
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name)) names.add(d.name.text);
    }
    if (ts.isImportDeclaration(statement) && statement.importClause) {
      const clause = statement.importClause;
      if (clause.name) names.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements) names.add(el.name.text);
    }
  }
  return names;
}

function templateText(node: T.TemplateExpression): string {
  return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" ");
}

function isConcatenationRoot(node: T.Node): node is T.BinaryExpression {
  if (!ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.PlusToken) return false;
  const parent = unwrapParent(node);
  return !(ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.PlusToken);
}

function flattenConcatenation(node: T.Expression): T.Expression[] {
  const e = unwrap(node);
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return [...flattenConcatenation(e.left), ...flattenConcatenation(e.right)];
  }
  return [e];
}

function isStringLiteralLike(node: T.Node): node is T.StringLiteral | T.NoSubstitutionTemplateLiteral {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

function calleeName(callee: T.Expression): string {
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return "";
}

function unwrap(e: T.Expression): T.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e))
    e = e.expression;
  return e;
}

function unwrapParent(node: T.Node): T.Node {
  let parent = node.parent;
  while (parent && ts.isParenthesizedExpression(parent)) parent = parent.parent;
  return parent;
}
