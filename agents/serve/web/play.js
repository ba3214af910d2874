// The play page: every step goes through the bot server's commands (docs/server.md); the page
// keeps only the current position, which it sends back with each request.
"use strict";

const $ = (id) => document.getElementById(id);
let info = null;
let position = null;
let summary = null;
let seedCounter = 0;
let busy = false;
let turns = 0; // the player's turns shown so far (data-turns on <body>, for tests and tools)

async function call(cmd, body) {
  const reply = await fetch(`/v1/${cmd}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  }).then((r) => r.json());
  if (!reply.ok) {
    throw new Error(`${cmd}: ${reply.error.code}: ${reply.error.message} (${reply.error.path})`);
  }
  return reply;
}

function showError(err) {
  $("error").hidden = false;
  $("error").textContent = String(err);
}

function log(text, cls) {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  $("log").appendChild(li);
  $("log").scrollTop = $("log").scrollHeight;
}

function fillSelect(select, values, chosen) {
  select.innerHTML = "";
  for (const v of values) {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = String(v);
    if (String(v) === String(chosen)) o.selected = true;
    select.appendChild(o);
  }
}

function onGameChanged() {
  const game = info.games.find((g) => g.name === $("game").value);
  fillSelect($("players"), game.players, 2);
  onPlayersChanged();
}

function onPlayersChanged() {
  const n = Number($("players").value);
  fillSelect($("seat"), [...Array(n).keys()], 0);
}

async function render() {
  const picture = await call("render", { position });
  $("board").src = `data:image/png;base64,${picture.png_base64}`;
  $("board").dataset.step = String(seedCounter);
  const who = summary.terminal
    ? `game over: returns ${JSON.stringify(summary.returns)}`
    : `deciding: ${summary.decision} by seat(s) ${summary.deciding.join(", ")}`;
  $("status").textContent = `${who}\n\n${summary.text}`;
}

function nextSeed() {
  seedCounter += 1;
  return Number($("seed").value) * 1000003 + seedCounter;
}

// The bots choose for every deciding seat but the player's; `mine` is the player's action.
async function playStep(mine) {
  const actions = {};
  const texts = [];
  for (const seat of summary.deciding) {
    if (seat === Number($("seat").value) && mine !== undefined) {
      actions[String(seat)] = mine.action;
      texts.push(`seat ${seat} (you): ${mine.text}`);
    } else {
      const move = await call("move", {
        position, seat, bot: $("bot").value, seed: nextSeed(),
      });
      actions[String(seat)] = move.action;
      texts.push(`seat ${seat} (${move.bot}): ${move.text}`);
    }
  }
  const me = Number($("seat").value);
  const step = await call("apply", { position, actions, seed: nextSeed(), seat: me });
  for (const t of texts) log(t);
  for (const e of step.events) log(e.text, "event");
  position = step.position;
  summary = step;
}

async function advance() {
  // bots play until the player decides or the game ends, then the player's buttons appear
  const me = Number($("seat").value);
  let guard = 0;
  while (!summary.terminal && !summary.deciding.includes(me) && guard < 500) {
    await playStep(undefined);
    guard += 1;
  }
  await render();
  await showActions();
}

async function showActions() {
  const box = $("actions");
  box.innerHTML = "";
  if (summary.terminal) {
    log(`game over: returns ${JSON.stringify(summary.returns)}`);
    turns += 1;
    document.body.dataset.turns = String(turns);
    return;
  }
  const me = Number($("seat").value);
  const legal = await call("legal", { position, seat: me });
  legal.actions.forEach((a, i) => {
    const b = document.createElement("button");
    b.textContent = a.text;
    b.className = "action";
    b.dataset.index = String(i);
    b.addEventListener("click", () => choose(a));
    box.appendChild(b);
  });
  turns += 1;
  document.body.dataset.turns = String(turns);
}

async function choose(action) {
  if (busy) return;
  busy = true;
  try {
    $("actions").innerHTML = "";
    await playStep(action);
    await advance();
  } catch (err) {
    showError(err);
  } finally {
    busy = false;
  }
}

async function newGame(event) {
  event.preventDefault();
  if (busy) return;
  busy = true;
  $("error").hidden = true;
  $("log").innerHTML = "";
  seedCounter = 0;
  try {
    const reply = await call("new_game", {
      game: $("game").value,
      players: Number($("players").value),
      seed: Number($("seed").value),
    });
    position = reply.position;
    summary = reply;
    log(`new game: ${$("game").value}, ${$("players").value} players, you are seat ${$("seat").value}`);
    for (const e of reply.events) log(e.text, "event");
    await advance();
  } catch (err) {
    showError(err);
  } finally {
    busy = false;
  }
}

async function start() {
  try {
    info = await call("info", {});
    fillSelect($("game"), info.games.map((g) => g.name), "lunatix");
    const bots = ["heuristic", "random", "trained", "mcts:sims=100,prior=heuristic,norm=1"];
    fillSelect($("bot"), bots, "heuristic");
    onGameChanged();
    $("game").addEventListener("change", onGameChanged);
    $("players").addEventListener("change", onPlayersChanged);
    $("setup").addEventListener("submit", newGame);
    document.body.dataset.ready = "1";
  } catch (err) {
    showError(err);
  }
}

start();
