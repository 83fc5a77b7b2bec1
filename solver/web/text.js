// The page's language (solver/web/app.js uses it): French or English.
//
// The language is the one chosen with the FR | EN switch (kept in
// localStorage), else the browser's first of the two (navigator.languages),
// else English. The page's words are marked with _() in these files
// (ngettext(singular, plural, n) for a count, N_() for a word kept in a
// constant), extracted by Babel into the catalog's `play` domain
// (docs/french.md); their French comes from GET /api/messages?lang=fr
// (solver/web/server.py), the page working in English without it.
// Placeholders are named ({points}) and filled by fmt(), so that a
// translation may put them in another order. Numbers: 10 000 and 53,10 %
// in French (Intl.NumberFormat: a narrow no-break space between thousands,
// a no-break space before %), 10000 and 53.10% in English.
"use strict";

const LANG_STORE = "farkle-lang";
const LANGS = ["fr", "en"];

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;"}[c]));
}

let lang = "en";
let messages = {};       // GET /api/messages: English words -> this language's

const N_ = (text) => text;

function _(text) {
  const found = messages[text];
  return typeof found === "string" && found ? found : text;
}

function ngettext(one, many, n) {
  const forms = messages[one];
  if (Array.isArray(forms)) {
    // The catalog's plural rule (CLDR): French 0 and 1 singular, then
    // whole millions, then the rest.
    const index = lang === "fr" ? (n === 0 || n === 1 ? 0 : n % 1000000 === 0 ? 1 : 2) : (n === 1 ? 0 : 2);
    if (forms[index]) return forms[index];
  }
  return n === 1 ? one : many;
}

function fmt(text, values) {
  // "{name}" -> values.name (a translation may put them in another order).
  return text.replace(/\{(\w+)\}/g, (all, key) => (key in values ? String(values[key]) : all));
}

function html(text, values) {
  // fmt() of a translated message into HTML: the message escaped, the
  // values given as HTML (already escaped by the caller).
  return esc(text).replace(/\{(\w+)\}/g, (all, key) => (key in values ? String(values[key]) : all));
}

function chosenLanguage() {
  const stored = localStorage.getItem(LANG_STORE);
  if (LANGS.includes(stored)) return stored;
  const wanted = navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const code = String(tag).toLowerCase().split(/[-_]/)[0];
    if (LANGS.includes(code)) return code;
  }
  return "en";
}

async function setLanguage(code) {
  // Switch the page's words to `code`; English needs no catalog. A catalog
  // that cannot be had leaves the page in English words.
  lang = code;
  messages = {};
  if (code !== "en") {
    try {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 20000);
      const response = await fetch(`/api/messages?lang=${code}`, {signal: abort.signal});
      clearTimeout(timer);
      if (response.ok) messages = (await response.json()).messages || {};
    } catch (error) { /* the English words, then */ }
  }
  document.documentElement.lang = code;
  staticWords();
}

const withLang = (path) => `${path}${path.includes("?") ? "&" : "?"}lang=${lang}`;

// Numbers as each language writes them.
const FR_WHOLE = new Intl.NumberFormat("fr-FR", {maximumFractionDigits: 0});
const FR_TWO = new Intl.NumberFormat("fr-FR", {minimumFractionDigits: 2, maximumFractionDigits: 2});
const num = (n) => (lang === "fr" ? FR_WHOLE.format(n) : String(n));
const two = (x) => (lang === "fr" ? FR_TWO.format(x) : x.toFixed(2));
const percentSign = (text) => (lang === "fr" ? `${text}\u00a0%` : `${text}%`);

// The page's fixed words (index.html holds the English, for the first
// paint; data-text names the entry here).
const STATIC = {
  title: N_("Farkle table: score sheet and advice"),
  heading: N_("Dice table"),
  sub: N_("dix-mille, quinze-mille, cinq-mille, Pig: score sheet and exact advice"),
  loading: N_("loading…"),
  newGame: N_("New game"),
  game: N_("Game"),
  players: N_("Players"),
  names: N_("Names, in playing order"),
  start: N_("Start"),
  resume: N_("Resume the saved game"),
  undo: N_("Undo"),
  sheet: N_("Score sheet"),
  chances: N_("Chances of winning"),
  card: N_("Strategy card"),
  events: N_("Last events"),
  language: N_("Language"),
};

function staticWords() {
  document.querySelectorAll("[data-text]").forEach((element) => {
    const text = STATIC[element.dataset.text];
    if (text) element.textContent = _(text);
  });
  document.title = _(STATIC.title);
  document.getElementById("lang-switch").setAttribute("aria-label", _(STATIC.language));
  document.querySelectorAll("#lang-switch button").forEach((button) => {
    button.setAttribute("aria-pressed", button.dataset.lang === lang ? "true" : "false");
  });
}
