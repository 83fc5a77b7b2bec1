// The page of `farkle serve`. The game lives here: its settings and the
// entries made so far. Every action posts them, with the new entry, to
// /api/game (solver/web/api.py); the server replays them and answers the
// score sheet, the phase, the advice, the chart and the events. An error
// keeps the old entries and shows the server's one-line reason.
//
// The page says "loading…" until its first answer (the HTML shows it before
// this script runs, so the page is never blank), and again whenever an
// answer takes a moment; a request that fails, or gets no answer within
// TIMEOUT_MS, shows one line and leaves the game as it was.
//
// The page speaks French or English (text.js, loaded first, has its words
// and numbers): every question to the server says the language (?lang=),
// so that its one-line errors and the texts it writes (a refusal, the
// strategy card, the default names) come in it too.
"use strict";

const STORE = "farkle-table";
const COLOURS = ["#0b5cad", "#c62828", "#1b7a2e", "#6a1b9a", "#a35200", "#00707a"];
const DASHES = ["", "7 4", "2 3", "9 3 2 3", "4 4", "1 3"];
const TIMEOUT_MS = 60000;   // a table's first question reads it: seconds, not minutes
const LOADING_AFTER_MS = 300;  // a quick answer shows no "loading…"
const GAMES_EVERY_MS = 5000;   // a table being made elsewhere: how often to look

let games = [];          // GET /api/games
let settings = null;     // {game, players, names}
let entries = [];        // the game so far
let answer = null;       // the server's last answer for `entries`
let tapped = [];         // dice tapped for the roll now due
let busy = false;
let loadingTimer = null;
let gamesTimer = null;   // looks again at a game whose table another farkle makes

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------ language
// The words and numbers of the page's language: text.js.
async function switchLanguage(code) {
  if (busy || code === lang) return;
  localStorage.setItem(LANG_STORE, code);
  await setLanguage(code);
  clearMessage();
  if (!$("play").hidden && answer) {
    // The server's words (a refusal, the card, the default names) again,
    // in the new language.
    if (!(await ask(entries))) render();
  } else {
    renderGames();
    updateSetup();
  }
}

const pct = (p) => percentSign(two(p * 100));
const pp = (p) => fmt(_("{value} pp"), {value: two(p * 100)});

// ------------------------------------------------------------ storage
function save(view) {
  const old = load() || {};
  localStorage.setItem(STORE, JSON.stringify({
    settings, entries, view: view || old.view || "play"}));
}

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE));
    if (saved && saved.settings && Array.isArray(saved.entries)) return saved;
  } catch (e) { /* a damaged save is no save */ }
  return null;
}

// ------------------------------------------------------------ messages
function showMessage(text) {
  const box = $("message");
  box.textContent = text;
  box.hidden = false;
}

function clearMessage() {
  $("message").hidden = true;
  $("message").textContent = "";
}

function showLoading(on) {
  $("loading").hidden = !on;
}

function setBusy(on) {
  busy = on;
  document.body.dataset.busy = on ? "1" : "0";
  document.querySelectorAll("#play button, #setup button").forEach((b) => {
    if (on) b.setAttribute("aria-busy", "true"); else b.removeAttribute("aria-busy");
  });
  clearTimeout(loadingTimer);
  if (on) loadingTimer = setTimeout(() => showLoading(true), LOADING_AFTER_MS);
  else showLoading(false);
}

// ------------------------------------------------------------ the server
async function request(path, options = {}) {
  // The server's JSON answer: {ok, status, data}. A table that another
  // farkle is making now (503 with retry_after) is asked for again after
  // the seconds the server gives, the page saying so meanwhile. A server
  // that cannot be reached, or does not answer in time, throws an Error of
  // one line.
  for (;;) {
    const reply = await requestOnce(path, options);
    const wait = reply.status === 503 && Number(reply.data.retry_after);
    if (!(wait > 0)) return reply;
    showMessage(fmt(_("{reason} (asking again every {seconds} s)"),
      {reason: refusal(reply), seconds: wait}));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

async function requestOnce(path, options) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  try {
    const response = await fetch(withLang(path), {...options, signal: abort.signal});
    let data;
    try { data = await response.json(); } catch (e) { data = {}; }
    return {ok: response.ok, status: response.status, data};
  } catch (error) {
    throw new Error(abort.signal.aborted
      ? fmt(_("the server did not answer within {seconds} s"), {seconds: TIMEOUT_MS / 1000})
      : fmt(_("cannot reach the server: {reason}"), {reason: error.message}));
  } finally {
    clearTimeout(timer);
  }
}

const refusal = (reply) => reply.data.error || fmt(_("the server answered {status}"),
  {status: reply.status});

async function ask(newEntries, game = settings) {
  // Post the game with `newEntries`; adopt them on 200. True on success.
  if (busy) return false;
  setBusy(true);
  try {
    const reply = await request("/api/game", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({...game, entries: newEntries})});
    if (!reply.ok) {
      showMessage(refusal(reply));
      return false;
    }
    const data = reply.data;
    settings = game;
    entries = newEntries;
    answer = data;
    tapped = [];
    clearMessage();
    save("play");
    showPlay();
    render();
    return true;
  } catch (error) {
    showMessage(error.message);
    return false;
  } finally {
    setBusy(false);
  }
}

const enter = (entry) => ask([...entries, entry]);

// ------------------------------------------------------------ setup
async function loadGames() {
  games = [];
  try {
    const reply = await request("/api/games");
    if (reply.ok) games = reply.data.games || [];
    else showMessage(refusal(reply));
  } catch (error) {
    showMessage(error.message);
  }
  renderGames();
  // The first game that can be played is the one offered.
  const playable = games.find((g) => g.table);
  if (playable) $("game").value = playable.name;
}

function renderGames() {
  const chosen = $("game").value;
  $("game").innerHTML = games.map((g) => {
    const shown = g.table ? g.name : fmt(_("{game} (no table yet)"), {game: g.name});
    return `<option value="${esc(g.name)}">${esc(shown)}</option>`;
  }).join("");
  if (games.some((g) => g.name === chosen)) $("game").value = chosen;
}

function currentGame() {
  return games.find((g) => g.name === $("game").value);
}

// Points a fall costs in the game being played (0: a fall goes back a bank).
const fallPenalty = () => (games.find((g) => g.name === settings.game) || {}).fall_penalty || 0;

const dice = (n) => fmt(ngettext("{n} die", "{n} dice", n), {n});

function describeRules(r) {
  const parts = [fmt(_("target {points}"), {points: num(r.target)}), dice(r.dice)];
  if (r.entry) parts.push(fmt(_("entry {points}"), {points: num(r.entry)}));
  if (r.crosses && r.fall_penalty) {
    parts.push(fmt(_("{n} zero turns in a row: −{points}"), {n: r.crosses, points: num(r.fall_penalty)}));
  } else if (r.crosses) {
    parts.push(fmt(ngettext("{n} cross", "{n} crosses", r.crosses), {n: r.crosses}));
  }
  if (r.takeover) parts.push(_("take-over"));
  return parts.join(" · ");
}

async function refreshGames() {
  // The game list again (a table being made elsewhere), the choice kept.
  const chosen = $("game").value;
  await loadGames();
  if (games.some((g) => g.name === chosen)) $("game").value = chosen;
  updateSetup();
}

function updateSetup() {
  clearTimeout(gamesTimer);
  const g = currentGame();
  const players = Number($("players").value);
  const info = $("game-info");
  const start = $("start");
  if (!g) {
    info.textContent = _("No game is served.");
    start.disabled = true;
  } else if (!g.table && g.solving !== null && g.solving !== undefined) {
    // Another farkle is making the table: look again every few seconds;
    // Start is offered as soon as it is there.
    const solving = g.solving ? fmt(_("Being solved now by another farkle (pid {pid})."), {pid: g.solving})
      : _("Being solved now by another farkle.");
    info.innerHTML = `${esc(describeRules(g))}<br><strong>${esc(solving)}</strong> ` +
      esc(_("This page goes on when it is done."));
    start.disabled = true;
    gamesTimer = setTimeout(refreshGames, GAMES_EVERY_MS);
  } else if (!g.table) {
    const none = _("No table here yet.");
    info.innerHTML = `${esc(describeRules(g))}<br><strong>${esc(none)}</strong> ` +
      html(_("Make it with: {command}"), {command: `<code class="command">${esc(g.command)}</code>`});
    start.disabled = true;
  } else {
    info.textContent = describeRules(g);
    start.disabled = false;
  }
  const pinfo = $("players-info");
  if (g && g.table && players > 2 && !(g.exact_players || []).includes(players)) {
    pinfo.textContent = fmt(_("No exact {n}-player table: the advice is the model's (a race of independent duels with each player, from the two-player table)."),
      {n: players});
  } else if (g && g.table) {
    pinfo.textContent = fmt(_("Exact {n}-player table."), {n: players});
  } else {
    pinfo.textContent = "";
  }
  // One name field per player; typed names are kept.
  const box = $("names");
  const typed = [...box.querySelectorAll(".name")].map((i) => i.value);
  box.querySelectorAll(".name-row").forEach((row) => row.remove());
  for (let i = 0; i < players; i++) {
    const row = document.createElement("div");
    row.className = "name-row";
    const placeholder = fmt(_("Player {n}"), {n: i + 1});
    row.innerHTML = `<label for="name-${i}">${i + 1}</label>` +
      `<input id="name-${i}" class="name" type="text" maxlength="24" autocomplete="off" ` +
      `placeholder="${esc(placeholder)}">`;
    row.querySelector("input").value = typed[i] || "";
    box.appendChild(row);
  }
}

function showSetup(fill) {
  $("setup").hidden = false;
  $("play").hidden = true;
  if (fill) {
    if (games.some((g) => g.name === fill.game)) $("game").value = fill.game;
    $("players").value = String(fill.players);
    $("names").querySelectorAll(".name-row").forEach((row) => row.remove());
    updateSetup();
    $("names").querySelectorAll(".name").forEach((input, i) => {
      input.value = (fill.names || [])[i] || "";
    });
  } else {
    updateSetup();
  }
  $("resume").hidden = !load();
}

function showPlay() {
  clearTimeout(gamesTimer);
  $("setup").hidden = true;
  $("play").hidden = false;
}

async function start() {
  const game = {
    game: $("game").value,
    players: Number($("players").value),
    names: [...document.querySelectorAll("#names .name")].map((i) => i.value.trim()),
  };
  await ask([], game);
}

// ------------------------------------------------------------ dice
function die(face, extra = "") {
  // A die face as pips (SVG: no font needed).
  const spots = {1: [[2, 2]], 2: [[1, 3], [3, 1]], 3: [[1, 3], [2, 2], [3, 1]],
    4: [[1, 1], [1, 3], [3, 1], [3, 3]], 5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]],
    6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]]}[face] || [];
  const pips = spots.map(([x, y]) => `<circle cx="${x * 6 + 0}" cy="${y * 6}" r="2.3"/>`).join("");
  return `<svg class="die ${extra}" viewBox="0 0 24 24" role="img" aria-label="${face}">` +
    `<rect x="1" y="1" width="22" height="22" rx="4"/>${pips}</svg>`;
}

const diceRow = (faces) => faces.map((f) => die(f)).join("");

// ------------------------------------------------------------ words
function nameOf(seat) {
  return (answer && answer.names[seat]) || fmt(_("Player {n}"), {n: seat + 1});
}

const both = (names) => names.reduce((first, second) => fmt(_("{first} and {second}"), {first, second}));

function choiceWords(c) {
  switch (c.action) {
    case "keep": return fmt(_("keep {dice} (+{points})"), {dice: c.keep.join(" "), points: num(c.points)});
    case "bank": return _("bank");
    case "roll": return _("roll");
    case "take": return _("take over");
    case "fresh": return _("roll fresh");
    case "zero": return _("zero roll");
    default: return c.action;
  }
}

const THEN = {bank: N_("then bank"), roll: N_("then roll on"), win: N_("wins the game"),
  zero: N_("overshoots: the turn is lost")};

function eventWords(e) {
  const values = {name: nameOf(e.seat), dice: e.dice.join(" "), points: num(e.points),
    score: num(e.score), n: e.count};
  const say = (text) => fmt(text, values);
  switch (e.kind) {
    case "roll": return say(_("{name} rolled {dice}"));
    case "keep": return say(e.forced && answer.rules.dice > 1 ? _("{name} kept {dice} (+{points}), the only keep")
      : _("{name} kept {dice} (+{points})"));
    case "zero": return say(ngettext("{name}: no die scores, {points} lost", "{name}: no die scores, {points} lost",
      e.points));
    case "bank": return say(e.count
      ? ngettext("{name} banked {points}, now {score} (offers {points} with {n} die)",
        "{name} banked {points}, now {score} (offers {points} with {n} dice)", e.count)
      : _("{name} banked {points}, now {score}"));
    case "cross": return say(_("{name} gets cross {n}"));
    case "fall": return settings && fallPenalty()
      ? fmt(_("{name} loses {penalty} points: {score}"), {...values, penalty: num(fallPenalty())})
      : say(_("{name} falls back to {score}"));
    case "take": return say(ngettext("{name} takes over {points} with {n} die",
      "{name} takes over {points} with {n} dice", e.count));
    case "fresh": return say(_("{name} rolls fresh"));
    case "overshoot": return say(_("{name} overshoots the target: {points} lost"));
    case "win": return say(_("{name} wins with {score}"));
    case "last-turn": return say(_("{name}: one last turn to pass {score}"));
    case "tie": return say(_("{name} banked {points}, equal at {score}: the win is shared"));
    case "shared": return fmt(_("{names} share the win at {score}"), {names: both(e.seats.map(nameOf)),
      score: num(e.score)});
    default: return null;
  }
}

// ------------------------------------------------------------ render
function render() {
  const a = answer;
  document.getElementById("play").dataset.phase = a.phase;
  document.getElementById("play").dataset.entries = String(entries.length);
  renderStatus(a);
  renderDecision(a);
  renderLastDecision(a);
  renderSheet(a);
  renderChart(a);
  renderCard(a);
  renderLog(a);
  $("undo").disabled = entries.length === 0;
}

function sharers(a) {
  return both(a.holders.map(nameOf));
}

function renderStatus(a) {
  const model = a.model ? fmt(_("advice model: {model}"), {model: a.model})
    : fmt(_("exact {n}-player table"), {n: a.players});
  let line;
  if (a.phase === "over") {
    line = a.winner === null
      ? esc(fmt(_("The win is shared by {names}"), {names: sharers(a)}))
      : html(_("{name} has won"), {name: `<strong>${esc(nameOf(a.winner))}</strong>`});
    line = `<p class="turn">${line}</p>`;
  } else {
    const turn = html(_("Turn {turn}: {name} to play"), {turn: a.turn_number,
      name: `<strong id="mover">${esc(nameOf(a.mover))}</strong>`});
    const total = html(_("turn total {points}"), {points: `<strong id="turn-total">${num(a.turn_total)}</strong>`});
    const hand = html(ngettext("{n} die in hand", "{n} dice in hand", a.in_hand),
      {n: `<strong id="in-hand">${a.in_hand}</strong>`});
    const offer = a.offer ? " · " + html(ngettext("offer {points} with {n} die", "offer {points} with {n} dice", a.offer.dice),
      {points: `<strong>${num(a.offer.points)}</strong>`, n: a.offer.dice}) : "";
    line = `<p class="turn">${turn}</p><p class="counts">${total} · ${hand}${offer}</p>`;
  }
  $("status").innerHTML = line +
    `<p class="model">${esc(a.game)} · ${esc(describeRules(a.rules))} · <span id="model">${esc(model)}</span></p>`;
}

const RECOMMENDED = () => _("recommended");

function choiceButton(c, best, extra = "") {
  const keep = c.keep ? ` data-keep="${c.keep.join(",")}"` : "";
  return `<button type="button" class="choice${best ? " best" : ""}" data-action="${c.action}"${keep}>` +
    `<span class="what">${extra}</span>` +
    `<span class="win">${pct(c.win)}</span>` +
    (best ? `<span class="badge">${esc(RECOMMENDED())}</span>` : "") + `</button>`;
}

function renderDecision(a) {
  const box = $("decision");
  const advice = a.advice;
  const note = advice && advice.note ? `<p id="note" class="note">${esc(advice.note)}</p>` : "";
  const mixes = advice && advice.mixed != null
    ? fmt(_("the table's equilibrium mixes this decision (probability {chance})"), {chance: pct(advice.mixed)}) : null;
  const mixed = mixes ? `<p class="note">${esc(mixes)}</p>` : "";
  const best = advice ? advice.choices[a.recommended] : null;
  let out = "";
  if (a.phase === "roll") {
    const slots = [];
    const remove = _("remove {face}");
    for (let i = 0; i < a.in_hand; i++) {
      slots.push(i < tapped.length
        ? `<button type="button" class="tapped" data-index="${i}" aria-label="${esc(fmt(remove, {face: tapped[i]}))}">${die(tapped[i])}</button>`
        : `<span class="slot"></span>`);
    }
    const heading = fmt(ngettext("Roll {n} die: tap what fell", "Roll {n} dice: tap what fell", a.in_hand), {n: a.in_hand});
    const words = {clear: _("Clear"), throw: _("Throw for me"),
      info: fmt(ngettext("The roll goes in when {n} die is tapped; tap a tapped die to remove it.",
        "The roll goes in when {n} dice are tapped; tap a tapped die to remove it.", a.in_hand), {n: a.in_hand})};
    out = `<h2>${esc(heading)}</h2>` +
      `<div id="tapped-dice" class="tapped-row">${slots.join("")}</div>` +
      `<div class="faces">${[1, 2, 3, 4, 5, 6].map((f) =>
        `<button type="button" class="face" data-face="${f}" aria-label="${f}">${die(f)}</button>`).join("")}</div>` +
      `<div class="row"><button type="button" id="clear">${esc(words.clear)}</button>` +
      `<button type="button" id="throw">${esc(words.throw)}</button></div>` +
      `<p class="info">${esc(words.info)}</p>`;
  } else if (a.phase === "keep") {
    const words = {rolled: _("Rolled"), which: _("Keep which?")};
    const then = (c) => (THEN[c.then] ? _(THEN[c.then]) : c.then);
    out = `<h2>${esc(words.rolled)}</h2><div class="roll">${diceRow(a.roll)}</div>` +
      `<h2>${esc(words.which)}</h2><div class="choices">` +
      advice.choices.map((c, i) => choiceButton(c, i === 0,
        `<span class="kept">${diceRow(c.keep)}</span><span class="detail">+${num(c.points)} · ${esc(then(c))}</span>`)).join("") +
      `</div>`;
  } else if (a.phase === "bank") {
    const words = {roll: fmt(ngettext("Roll {n} die", "Roll {n} dice", a.in_hand), {n: a.in_hand}),
      bank: fmt(_("Bank {points}"), {points: num(a.turn_total)}),
      on: _("Roll on"), only: _("the only choice"), not: _("not allowed"), question: _("Bank or roll?")};
    if (a.bank_refusal) {
      out = `<h2>${esc(words.on)}</h2><p id="refusal" class="refusal">${esc(a.bank_refusal)}</p>` +
        `<div class="choices">` +
        `<button type="button" class="choice best" data-action="roll"><span class="what">${esc(words.roll)}</span><span class="win">${esc(words.only)}</span></button>` +
        `<button type="button" class="choice" data-action="bank"><span class="what">${esc(words.bank)}</span><span class="win">${esc(words.not)}</span></button>` +
        `</div>`;
    } else {
      out = `<h2>${esc(words.question)}</h2><div class="choices">` +
        advice.choices.map((c) => choiceButton(c, c === best, esc(words[c.action] || c.action))).join("") +
        `</div>`;
    }
  } else if (a.phase === "take") {
    const words = {take: fmt(ngettext("Take over {points} with {n} die", "Take over {points} with {n} dice", a.offer.dice),
      {points: num(a.offer.points), n: a.offer.dice}),
    fresh: fmt(ngettext("Roll {n} die fresh", "Roll {n} dice fresh", a.rules.dice), {n: a.rules.dice}),
    question: _("Take over or roll fresh?")};
    out = `<h2>${esc(words.question)}</h2><div class="choices">` +
      advice.choices.map((c) => choiceButton(c, c === best, esc(words[c.action] || c.action))).join("") +
      `</div>`;
  } else if (a.phase === "over") {
    const winner = a.winner === null
      ? fmt(_("The win is shared by {names} at {score}"), {names: sharers(a), score: num(a.to_pass)})
      : fmt(_("{name} wins with {score}"), {name: nameOf(a.winner), score: num(a.sheet[a.winner].score)});
    const review = _("Review: win probability given up by each player's decisions");
    const gaveUp = _("{name}: gave up {cost}");
    out = `<h2 id="winner">${esc(winner)}</h2><h3>${esc(review)}</h3><ul id="review">` +
      a.sheet.map((line, seat) => `<li>${esc(fmt(gaveUp, {name: nameOf(seat), cost: pp(line.given_up)}))}</li>`).join("") +
      `</ul>`;
  }
  box.innerHTML = out + note + mixed;
}

function renderLastDecision(a) {
  const d = a.last_decision;
  const box = $("last-decision");
  if (!d) {
    const none = _("No decision yet.");
    box.innerHTML = `<p class="info">${esc(none)}</p>`;
    return;
  }
  const words = {best: fmt(_("best: {choice}: {chance}"), {choice: choiceWords(d.best), chance: pct(d.best.win)}),
    cost: fmt(_("cost {cost}"), {cost: pp(d.cost)}), good: _("best choice"),
    label: fmt(_("Last decision (turn {turn})"), {turn: d.turn_number}),
    chosen: fmt(_("{name}: {choice}: {chance}"), {name: nameOf(d.seat), choice: choiceWords(d.chosen),
      chance: pct(d.chosen.win)})};
  const verdict = d.cost > 0
    ? `<br>${esc(words.best)} · <strong class="cost">${esc(words.cost)}</strong>`
    : ` · <strong class="good">${esc(words.good)}</strong>`;
  box.innerHTML = `<p><span class="label">${esc(words.label)}</span>${esc(words.chosen)}${verdict}</p>`;
}

function renderSheet(a) {
  const crosses = a.rules.crosses > 0;
  const previous = crosses && !a.rules.fall_penalty;   // a penalty keeps no previous score
  const words = {player: _("Player"), score: _("Score"), crosses: _("crosses"),
    previousScore: _("previous score"), prev: _("Prev."),
    givenUpTitle: _("win probability given up by this player's decisions"), givenUp: _("Given up")};
  const head = `<thead><tr><th>${esc(words.player)}</th><th class="num">${esc(words.score)}</th>` +
    (crosses ? `<th class="num" title="${esc(words.crosses)}">✕</th>` : "") +
    (previous ? `<th class="num" title="${esc(words.previousScore)}">${esc(words.prev)}</th>` : "") +
    `<th class="num" title="${esc(words.givenUpTitle)}">${esc(words.givenUp)}</th></tr></thead>`;
  const rows = a.sheet.map((line, seat) => {
    const mover = a.phase !== "over" && seat === a.mover;
    const won = a.phase === "over" && seat === a.winner;
    return `<tr data-seat="${seat}" class="${mover ? "mover" : ""}${won ? " winner" : ""}">` +
      `<td class="who"><span class="swatch" style="background:${COLOURS[seat]}"></span>${mover ? "▶ " : ""}${esc(line.name)}</td>` +
      `<td class="num score">${num(line.score)}</td>` +
      (crosses ? `<td class="num">${"✕".repeat(line.crosses) || "–"}</td>` : "") +
      (previous ? `<td class="num">${num(line.previous)}</td>` : "") +
      `<td class="num given-up">${pp(line.given_up)}</td></tr>`;
  }).join("");
  $("sheet").innerHTML = head + `<tbody>${rows}</tbody>`;
  const offer = $("offer");
  if (a.rules.takeover) {
    offer.hidden = false;
    offer.textContent = a.offer
      ? fmt(ngettext("On the table: {points} with {n} die to take over.",
        "On the table: {points} with {n} dice to take over.", a.offer.dice), {points: num(a.offer.points), n: a.offer.dice})
      : _("No offer on the table.");
  } else {
    offer.hidden = true;
  }
}

function renderChart(a) {
  const W = 360, H = 190, L = 38, R = 10, T = 10, B = 26;
  const points = a.chart;
  const n = points.length;
  const x = (i) => L + (n <= 1 ? 0 : (i * (W - L - R)) / (n - 1));
  const y = (p) => T + (1 - p) * (H - T - B);
  const label = _("each player's chance of winning at every turn start");
  let svg = `<svg id="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(label)}">`;
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    svg += `<line class="grid" x1="${L}" x2="${W - R}" y1="${y(p)}" y2="${y(p)}"/>` +
      `<text class="axis" x="${L - 5}" y="${y(p) + 4}" text-anchor="end">${percentSign(p * 100)}</text>`;
  }
  const turn = (t) => esc(fmt(_("turn {turn}"), {turn: t}));
  const count = esc(fmt(ngettext("{n} point", "{n} points", n), {n}));
  svg += `<text class="axis" x="${L}" y="${H - 6}">${turn(points[0].turn)}</text>` +
    `<text class="axis" x="${W - R}" y="${H - 6}" text-anchor="end">` +
    `${n > 1 ? `${turn(points[n - 1].turn)} · ` : ""}${count}</text>`;
  const latest = [];
  for (let seat = 0; seat < a.players; seat++) {
    const have = [];
    points.forEach((pt, i) => {
      const p = pt.chances[seat];
      if (p !== null && p !== undefined) have.push([x(i), y(p)]);
    });
    const last = [...points].reverse().find((pt) => pt.chances[seat] != null);
    latest.push(last ? last.chances[seat] : null);
    const dash = DASHES[seat] ? ` stroke-dasharray="${DASHES[seat]}"` : "";
    svg += `<polyline data-seat="${seat}" fill="none" stroke="${COLOURS[seat]}" stroke-width="2.5"${dash} ` +
      `points="${have.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" ")}"/>`;
    svg += have.map(([px, py]) =>
      `<circle class="dot" cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="2.6" fill="${COLOURS[seat]}"/>`).join("");
  }
  svg += `</svg>`;
  $("chart-box").innerHTML = svg;
  $("legend").innerHTML = a.names.map((name, seat) =>
    `<li data-seat="${seat}"><svg class="key" viewBox="0 0 30 10"><line x1="0" y1="5" x2="30" y2="5" ` +
    `stroke="${COLOURS[seat]}" stroke-width="3"${DASHES[seat] ? ` stroke-dasharray="${DASHES[seat]}"` : ""}/></svg>` +
    `${esc(name)}${latest[seat] != null ? ` <span class="num">${pct(latest[seat])}</span>` : ""}</li>`).join("");
}

function renderCard(a) {
  // The rule to remember, for when the phone is put away.
  $("card-box").hidden = !a.card;
  if (!a.card) return;
  $("card").textContent = a.card.text;
  $("card-note").textContent = a.card.players === a.players
    ? ""
    : fmt(_("Fitted for {n} players: play it against the leader."), {n: a.card.players});
}

const NOTHING_YET = () => _("Nothing yet.");

function renderLog(a) {
  const words = a.events.map(eventWords).filter((w) => w !== null);
  const last = words.slice(-10).reverse();
  $("log").innerHTML = last.length
    ? last.map((w) => `<li>${esc(w)}</li>`).join("")
    : `<li class="info">${esc(NOTHING_YET())}</li>`;
}

// ------------------------------------------------------------ actions
function tap(face) {
  if (busy || !answer || answer.phase !== "roll" || tapped.length >= answer.in_hand) return;
  tapped.push(face);
  if (tapped.length === answer.in_hand) {
    enter({dice: [...tapped]});
  } else {
    renderDecision(answer);
  }
}

function onPlayClick(event) {
  const button = event.target.closest("button");
  if (!button || busy || !answer) return;
  if (button.classList.contains("face")) return tap(Number(button.dataset.face));
  if (button.classList.contains("tapped")) {
    tapped.splice(Number(button.dataset.index), 1);
    return renderDecision(answer);
  }
  if (button.id === "clear") {
    tapped = [];
    return renderDecision(answer);
  }
  if (button.id === "throw") {
    while (tapped.length < answer.in_hand) tapped.push(1 + Math.floor(Math.random() * 6));
    return enter({dice: [...tapped]});
  }
  if (button.classList.contains("choice")) {
    const action = button.dataset.action;
    if (action === "keep") return enter({keep: button.dataset.keep.split(",").map(Number)});
    return enter({choose: action});
  }
  if (button.id === "undo" && entries.length) return ask(entries.slice(0, -1));
  if (button.id === "new-game") {
    save("setup");
    clearMessage();
    return showSetup(settings);
  }
}

async function main() {
  await setLanguage(chosenLanguage());
  document.querySelectorAll("#lang-switch button").forEach((button) => {
    button.addEventListener("click", () => switchLanguage(button.dataset.lang));
  });
  $("play").addEventListener("click", onPlayClick);
  $("game").addEventListener("change", updateSetup);
  $("players").addEventListener("change", updateSetup);
  $("start").addEventListener("click", () => { if (!busy) start(); });
  $("resume").addEventListener("click", () => {
    const saved = load();
    if (saved && !busy) ask(saved.entries, saved.settings);
  });
  await loadGames();
  const saved = load();
  if (saved && saved.view === "play") {
    entries = saved.entries;
    if (await ask(saved.entries, saved.settings)) return;
  }
  showSetup(saved ? saved.settings : null);
  showLoading(false);       // the first answer is in, or its error is shown
}

main();
