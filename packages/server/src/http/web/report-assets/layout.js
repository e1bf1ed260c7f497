// The frame every page shares: the navigation, the token bar and how a section shows a failure.
import { ApiError, adoptTokenFromFragment, forgetToken, getToken, setToken } from "./api.js";
import { fill, h } from "./dom.js";

const PAGES = [
  { file: "index.html", label: "Overview" },
  { file: "accuracy.html", label: "Accuracy" },
  { file: "waste.html", label: "Waste" },
  { file: "alerts.html", label: "Alerts" },
];

/**
 * Sets up a page: takes a `#token=…` from the address, draws the header, and runs `load` once a
 * token is there (now, or when the user pastes one).
 */
export function startPage(active, load) {
  adoptTokenFromFragment();
  const header = document.querySelector("header.top");
  const run = () => {
    drawHeader(header, active, run);
    if (getToken()) load();
  };
  run();
}

function drawHeader(header, active, reload) {
  const nav = h(
    "nav",
    {},
    PAGES.map((p) => h("a", { href: p.file, class: p.file === active ? "active" : undefined }, p.label)),
  );
  fill(header, h("a", { class: "brand", href: "index.html" }, "Jobsight"), nav, tokenBar(reload));
}

function tokenBar(reload) {
  if (getToken()) {
    return h(
      "div",
      { class: "token", id: "token-bar" },
      h("span", { class: "muted" }, "API token set for this tab"),
      h(
        "button",
        {
          type: "button",
          class: "link-button",
          onclick: () => {
            forgetToken();
            location.reload();
          },
        },
        "Forget",
      ),
    );
  }
  const input = h("input", {
    type: "password",
    id: "token-input",
    placeholder: "Paste an API token (platform role)",
    autocomplete: "off",
    spellcheck: "false",
  });
  return h(
    "form",
    {
      class: "token",
      id: "token-bar",
      onsubmit: (event) => {
        event.preventDefault();
        if (!input.value.trim()) return;
        setToken(input.value);
        reload();
      },
    },
    input,
    h("button", { type: "submit" }, "Use token"),
  );
}

/** Shows why a section has no data, in words; a refused token brings the token field back. */
export function showError(container, error, what) {
  const message = explain(error, what);
  fill(container, h("p", { class: "notice error", role: "alert" }, message));
  if (error instanceof ApiError && error.status === 401 && getToken()) {
    forgetToken();
    const header = document.querySelector("header.top");
    const field = header?.querySelector("#token-bar");
    if (field)
      field.replaceWith(
        h("p", { class: "notice error" }, "The token was refused: reload and paste another."),
      );
  }
}

function explain(error, what) {
  if (!(error instanceof ApiError)) return `Could not show ${what}: ${error.message}`;
  switch (error.status) {
    case 401:
      return `${capitalise(what)} needs a valid API token: ${error.message}`;
    case 403:
      return `This token may not read ${what} (a platform token is needed): ${error.message}`;
    case 404:
      return `No ${what}: ${error.message}`;
    case 501:
      return `This server does not provide ${what} yet (${error.code}).`;
    default:
      return `Could not load ${what} (${error.status || "no answer"} ${error.code}): ${error.message}`;
  }
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A "loading…" line for a section while its request runs. */
export function loading(container, what) {
  fill(container, h("p", { class: "muted" }, `Loading ${what}…`));
}

/** The address of a job's page, from anything with `jobId` and `cluster`. */
export function jobLink(job) {
  return `jobs.html?${new URLSearchParams({ id: job.jobId, cluster: job.cluster })}`;
}
