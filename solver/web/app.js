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

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;"}[c]));
}

const pct = (p) => `${(p * 100).toFixed(2)}%`;
const pp = (p) => `${(p * 100).toFixed(2)} pp`;

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
    showMessage(`${refusal(reply)} (asking again every ${wait} s)`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

async function requestOnce(path, options) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  try {
    const response = await fetch(path, {...options, signal: abort.signal});
    let data;
    try { data = await response.json(); } catch (e) { data = {}; }
    return {ok: response.ok, status: response.status, data};
  } catch (error) {
    throw new Error(abort.signal.aborted
      ? `the server did not answer within ${TIMEOUT_MS / 1000} s`
      : `cannot reach the server: ${error.message}`);
  } finally {
    clearTimeout(timer);
  }
}

const refusal = (reply) => reply.data.error || `the server answered ${reply.status}`;

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
  $("game").innerHTML = games.map((g) => {
    const missing = g.table ? "" : " (no table yet)";
    return `<option value="${esc(g.name)}">${esc(g.name)}${missing}</option>`;
  }).join("");
  // The first game that can be played is the one offered.
  const playable = games.find((g) => g.table);
  if (playable) $("game").value = playable.name;
}

function currentGame() {
  return games.find((g) => g.name === $("game").value);
}

// Points a fall costs in the game being played (0: a fall goes back a bank).
const fallPenalty = () => (games.find((g) => g.name === settings.game) || {}).fall_penalty || 0;

function describeRules(r) {
  const parts = [`target ${r.target}`, `${r.dice} ${r.dice === 1 ? "die" : "dice"}`];
  if (r.entry) parts.push(`entry ${r.entry}`);
  if (r.crosses && r.fall_penalty) parts.push(`${r.crosses} zero turns in a row: −${r.fall_penalty}`);
  else if (r.crosses) parts.push(`${r.crosses} crosses`);
  if (r.takeover) parts.push("take-over");
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
    info.textContent = "No game is served.";
    start.disabled = true;
  } else if (!g.table && g.solving !== null && g.solving !== undefined) {
    // Another farkle is making the table: look again every few seconds;
    // Start is offered as soon as it is there.
    const pid = g.solving ? ` (pid ${g.solving})` : "";
    info.innerHTML = `${esc(describeRules(g))}<br><strong>Being solved now by another ` +
      `farkle${esc(pid)}.</strong> This page goes on when it is done.`;
    start.disabled = true;
    gamesTimer = setTimeout(refreshGames, GAMES_EVERY_MS);
  } else if (!g.table) {
    info.innerHTML = `${esc(describeRules(g))}<br><strong>No table here yet.</strong> ` +
      `Make it with: <code class="command">${esc(g.command)}</code>`;
    start.disabled = true;
  } else {
    info.textContent = describeRules(g);
    start.disabled = false;
  }
  const pinfo = $("players-info");
  if (g && g.table && players > 2 && !(g.exact_players || []).includes(players)) {
    pinfo.textContent = `No exact ${players}-player table: the advice is the model's ` +
      `(a race of independent duels with each player, from the two-player table).`;
  } else if (g && g.table) {
    pinfo.textContent = `Exact ${players}-player table.`;
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
    row.innerHTML = `<label for="name-${i}">${i + 1}</label>` +
      `<input id="name-${i}" class="name" type="text" maxlength="24" autocomplete="off" ` +
      `placeholder="Player ${i + 1}">`;
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
  return (answer && answer.names[seat]) || `Player ${seat + 1}`;
}

function choiceWords(c) {
  switch (c.action) {
    case "keep": return `keep ${c.keep.join(" ")} (+${c.points})`;
    case "bank": return "bank";
    case "roll": return "roll";
    case "take": return "take over";
    case "fresh": return "roll fresh";
    case "zero": return "zero roll";
    default: return c.action;
  }
}

const THEN = {bank: "then bank", roll: "then roll on", win: "wins the game",
  zero: "overshoots: the turn is lost"};

function eventWords(e) {
  const who = nameOf(e.seat);
  switch (e.kind) {
    case "roll": return `${who} rolled ${e.dice.join(" ")}`;
    case "keep": return `${who} kept ${e.dice.join(" ")} (+${e.points})${e.forced && answer.rules.dice > 1 ? ", the only keep" : ""}`;
    case "zero": return `${who}: no die scores, ${e.points} lost`;
    case "bank": return `${who} banked ${e.points}, now ${e.score}` +
      (e.count ? ` (offers ${e.points} with ${e.count} dice)` : "");
    case "cross": return `${who} gets cross ${e.count}`;
    case "fall": return settings && fallPenalty()
      ? `${who} loses ${fallPenalty()} points: ${e.score}` : `${who} falls back to ${e.score}`;
    case "take": return `${who} takes over ${e.points} with ${e.count} dice`;
    case "fresh": return `${who} rolls fresh`;
    case "overshoot": return `${who} overshoots the target: ${e.points} lost`;
    case "win": return `${who} wins with ${e.score}`;
    case "last-turn": return `${who}: one last turn to pass ${e.score}`;
    case "tie": return `${who} banked ${e.points}, equal at ${e.score}: the win is shared`;
    case "shared": return `${e.seats.map(nameOf).join(" and ")} share the win at ${e.score}`;
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
  return a.holders.map(nameOf).join(" and ");
}

function renderStatus(a) {
  const model = a.model ? `advice model: ${a.model}` : `exact ${a.players}-player table`;
  let line;
  if (a.phase === "over") {
    line = a.winner === null ? `<p class="turn">The win is shared by ${esc(sharers(a))}</p>`
      : `<p class="turn"><strong>${esc(nameOf(a.winner))}</strong> has won</p>`;
  } else {
    line = `<p class="turn">Turn ${a.turn_number}: <strong id="mover">${esc(nameOf(a.mover))}</strong> to play</p>` +
      `<p class="counts">turn total <strong id="turn-total">${a.turn_total}</strong> · ` +
      `<strong id="in-hand">${a.in_hand}</strong> ${a.in_hand === 1 ? "die" : "dice"} in hand` +
      (a.offer ? ` · offer <strong>${a.offer.points}</strong> with ${a.offer.dice} dice` : "") +
      `</p>`;
  }
  $("status").innerHTML = line +
    `<p class="model">${esc(a.game)} · ${esc(describeRules(a.rules))} · <span id="model">${esc(model)}</span></p>`;
}

function choiceButton(c, best, extra = "") {
  const keep = c.keep ? ` data-keep="${c.keep.join(",")}"` : "";
  return `<button type="button" class="choice${best ? " best" : ""}" data-action="${c.action}"${keep}>` +
    `<span class="what">${extra}</span>` +
    `<span class="win">${pct(c.win)}</span>` +
    (best ? `<span class="badge">recommended</span>` : "") + `</button>`;
}

function renderDecision(a) {
  const box = $("decision");
  const advice = a.advice;
  const note = advice && advice.note ? `<p id="note" class="note">${esc(advice.note)}</p>` : "";
  const mixed = advice && advice.mixed != null
    ? `<p class="note">the table's equilibrium mixes this decision (probability ${pct(advice.mixed)})</p>` : "";
  const best = advice ? advice.choices[a.recommended] : null;
  let html = "";
  if (a.phase === "roll") {
    const slots = [];
    for (let i = 0; i < a.in_hand; i++) {
      slots.push(i < tapped.length
        ? `<button type="button" class="tapped" data-index="${i}" aria-label="remove ${tapped[i]}">${die(tapped[i])}</button>`
        : `<span class="slot"></span>`);
    }
    html = `<h2>Roll ${a.in_hand} ${a.in_hand === 1 ? "die" : "dice"}: tap what fell</h2>` +
      `<div id="tapped-dice" class="tapped-row">${slots.join("")}</div>` +
      `<div class="faces">${[1, 2, 3, 4, 5, 6].map((f) =>
        `<button type="button" class="face" data-face="${f}" aria-label="${f}">${die(f)}</button>`).join("")}</div>` +
      `<div class="row"><button type="button" id="clear">Clear</button>` +
      `<button type="button" id="throw">Throw for me</button></div>` +
      `<p class="info">The roll goes in when ${a.in_hand} ${a.in_hand === 1 ? "die is" : "dice are"} tapped; tap a tapped die to remove it.</p>`;
  } else if (a.phase === "keep") {
    html = `<h2>Rolled</h2><div class="roll">${diceRow(a.roll)}</div>` +
      `<h2>Keep which?</h2><div class="choices">` +
      advice.choices.map((c, i) => choiceButton(c, i === 0,
        `<span class="kept">${diceRow(c.keep)}</span><span class="detail">+${c.points} · ${esc(THEN[c.then] || c.then)}</span>`)).join("") +
      `</div>`;
  } else if (a.phase === "bank") {
    if (a.bank_refusal) {
      html = `<h2>Roll on</h2><p id="refusal" class="refusal">${esc(a.bank_refusal)}</p>` +
        `<div class="choices">` +
        `<button type="button" class="choice best" data-action="roll"><span class="what">Roll ${a.in_hand} ${a.in_hand === 1 ? "die" : "dice"}</span><span class="win">the only choice</span></button>` +
        `<button type="button" class="choice" data-action="bank"><span class="what">Bank ${a.turn_total}</span><span class="win">not allowed</span></button>` +
        `</div>`;
    } else {
      const words = {bank: `Bank ${a.turn_total}`, roll: `Roll ${a.in_hand} ${a.in_hand === 1 ? "die" : "dice"}`};
      html = `<h2>Bank or roll?</h2><div class="choices">` +
        advice.choices.map((c) => choiceButton(c, c === best, esc(words[c.action] || c.action))).join("") +
        `</div>`;
    }
  } else if (a.phase === "take") {
    const words = {take: `Take over ${a.offer.points} with ${a.offer.dice} dice`, fresh: `Roll ${a.rules.dice} dice fresh`};
    html = `<h2>Take over or roll fresh?</h2><div class="choices">` +
      advice.choices.map((c) => choiceButton(c, c === best, esc(words[c.action] || c.action))).join("") +
      `</div>`;
  } else if (a.phase === "over") {
    html = (a.winner === null ? `<h2 id="winner">The win is shared by ${esc(sharers(a))} at ${a.to_pass}</h2>`
      : `<h2 id="winner">${esc(nameOf(a.winner))} wins with ${a.sheet[a.winner].score}</h2>`) +
      `<h3>Review: win probability given up by each player's decisions</h3><ul id="review">` +
      a.sheet.map((line, seat) => `<li>${esc(nameOf(seat))}: ` +
        `gave up ${pp(line.given_up)}</li>`).join("") +
      `</ul>`;
  }
  box.innerHTML = html + note + mixed;
}

function renderLastDecision(a) {
  const d = a.last_decision;
  const box = $("last-decision");
  if (!d) {
    box.innerHTML = `<p class="info">No decision yet.</p>`;
    return;
  }
  const who = nameOf(d.seat);
  const verdict = d.cost > 0
    ? `<br>best: ${esc(choiceWords(d.best))}: ${pct(d.best.win)} · <strong class="cost">cost ${pp(d.cost)}</strong>`
    : ` · <strong class="good">best choice</strong>`;
  box.innerHTML = `<p><span class="label">Last decision (turn ${d.turn_number})</span>` +
    `${esc(who)}: ${esc(choiceWords(d.chosen))}: ${pct(d.chosen.win)}${verdict}</p>`;
}

function renderSheet(a) {
  const crosses = a.rules.crosses > 0;
  const previous = crosses && !a.rules.fall_penalty;   // a penalty keeps no previous score
  const head = `<thead><tr><th>Player</th><th class="num">Score</th>` +
    (crosses ? `<th class="num" title="crosses">✕</th>` : "") +
    (previous ? `<th class="num" title="previous score">Prev.</th>` : "") +
    `<th class="num" title="win probability given up by this player's decisions">Given up</th></tr></thead>`;
  const rows = a.sheet.map((line, seat) => {
    const mover = a.phase !== "over" && seat === a.mover;
    const won = a.phase === "over" && seat === a.winner;
    return `<tr data-seat="${seat}" class="${mover ? "mover" : ""}${won ? " winner" : ""}">` +
      `<td class="who"><span class="swatch" style="background:${COLOURS[seat]}"></span>${mover ? "▶ " : ""}${esc(line.name)}</td>` +
      `<td class="num score">${line.score}</td>` +
      (crosses ? `<td class="num">${"✕".repeat(line.crosses) || "–"}</td>` : "") +
      (previous ? `<td class="num">${line.previous}</td>` : "") +
      `<td class="num given-up">${pp(line.given_up)}</td></tr>`;
  }).join("");
  $("sheet").innerHTML = head + `<tbody>${rows}</tbody>`;
  const offer = $("offer");
  if (a.rules.takeover) {
    offer.hidden = false;
    offer.textContent = a.offer
      ? `On the table: ${a.offer.points} with ${a.offer.dice} dice to take over.`
      : "No offer on the table.";
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
  let svg = `<svg id="chart" viewBox="0 0 ${W} ${H}" role="img" ` +
    `aria-label="each player's chance of winning at every turn start">`;
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    svg += `<line class="grid" x1="${L}" x2="${W - R}" y1="${y(p)}" y2="${y(p)}"/>` +
      `<text class="axis" x="${L - 5}" y="${y(p) + 4}" text-anchor="end">${p * 100}%</text>`;
  }
  svg += `<text class="axis" x="${L}" y="${H - 6}">turn ${points[0].turn}</text>` +
    `<text class="axis" x="${W - R}" y="${H - 6}" text-anchor="end">` +
    `${n > 1 ? `turn ${points[n - 1].turn} · ` : ""}${n} ${n === 1 ? "point" : "points"}</text>`;
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
    : `Fitted for ${a.card.players} players: play it against the leader.`;
}

function renderLog(a) {
  const words = a.events.map(eventWords).filter((w) => w !== null);
  const last = words.slice(-10).reverse();
  $("log").innerHTML = last.length
    ? last.map((w) => `<li>${esc(w)}</li>`).join("")
    : `<li class="info">Nothing yet.</li>`;
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
