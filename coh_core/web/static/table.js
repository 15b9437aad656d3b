// The web table's page: draws a seat's view as the server sends it (no game words here: every
// name and text comes from the message), and answers through the menu's keys.
"use strict";

const token = location.pathname.split("/").filter(Boolean).pop();
const params = new URLSearchParams(location.search);
let lang = params.get("lang") || localStorage.getItem("coh-lang") || "";
let socket = null;
let state = null;
let path = []; // the groups opened in the menu
let typed = ""; // the letters of a key typed so far
let retry = 500;
let received = 0; // the states received: the page's version
let story = []; // the story's lines received so far (the server sends those the page lacks)

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
// An id's name in the page's language; an id the pack gives no name is not shown
function name(id) { return (state && state.names[id]) || ""; }
function word(key) { return (state && state.words[key]) || key; }

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = new URLSearchParams();
  if (lang) query.set("lang", lang);
  query.set("after", String(story.length)); // the story's lines the page has: only the rest is sent
  socket = new WebSocket(`${scheme}://${location.host}/ws/${token}?${query}`);
  socket.onopen = () => { retry = 500; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      if (!state || state.decision !== message.decision) path = [];
      state = message;
      addStory(message.story);
      received += 1;
      hideError();
      draw();
    } else if (message.type === "thinking") {
      document.getElementById("waiting").textContent = message.text;
      document.body.dataset.thinking = message.seat;
    } else if (message.type === "error") {
      showError(message.code + ": " + message.message);
    }
  };
  socket.onclose = (event) => {
    if (event.code === 4404) { location.reload(); return; } // no room (any more): the server's page says so
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 2000);
  };
}

// Entries are [number, line], numbered from 1: entry N follows the page's first N - 1 lines.
function addStory(entries) {
  if (!entries.length) return;
  story.length = Math.min(story.length, entries[0][0] - 1);
  for (const [, line] of entries) story.push(line);
}

function showError(text) { const box = document.getElementById("error"); box.textContent = text; box.hidden = false; }
function hideError() { document.getElementById("error").hidden = true; }

function send(keys) {
  socket.send(JSON.stringify({ type: "answer", key: keys.join(" "), decision: state.decision }));
}

function draw() {
  const view = state.view;
  document.documentElement.lang = state.lang;
  document.body.dataset.decision = String(state.decision);
  document.body.dataset.over = String(state.over);
  document.body.dataset.version = String(received);
  delete document.body.dataset.thinking;
  document.getElementById("seat").textContent = state.me ? name(state.me) : word("spectator");
  document.getElementById("turn").textContent = state.header;
  document.getElementById("pointers").textContent = state.board.pointers.join(" · ");
  drawLanguages();
  drawBoard(view);
  drawMenu();
  drawWaiting();
  drawResult();
  document.getElementById("summary").textContent = state.table.join("\n");
  drawMine();
  drawSeats(view);
  drawPiles();
  const list = clear(document.getElementById("story"));
  for (const line of story) list.appendChild(el("li", line));
  list.scrollTop = list.scrollHeight;
}

function drawLanguages() {
  const select = document.getElementById("lang");
  if (select.options.length !== state.langs.length) {
    clear(select);
    for (const code of state.langs) select.appendChild(el("option", code)).value = code;
    select.onchange = () => {
      lang = select.value;
      localStorage.setItem("coh-lang", lang);
      story = []; // told again in the new language
      socket.onclose = null;
      socket.close();
      connect();
    };
  }
  select.value = state.langs.includes(state.lang) ? state.lang : state.lang.split("-")[0];
}

function piecesAt(view, place) {
  const found = [];
  for (const [kind, pieces] of Object.entries(view.pieces)) {
    for (const [id, piece] of Object.entries(pieces)) {
      if (piece.at === place && piece.alive !== false) found.push([kind, id, piece]);
    }
  }
  return found;
}

function drawBoard(view) {
  const board = clear(document.getElementById("board"));
  for (const [place, info] of Object.entries(view.locations)) {
    const box = el("div", null, "place");
    box.dataset.place = place;
    const head = el("h3", name(place));
    if (info.side !== undefined && info.side !== null) {
      head.appendChild(el("span", " · " + name(place + "/" + info.side), "sideof"));
    }
    box.appendChild(head);
    const counts = el("ul", null, "counts");
    for (const label of state.board.places[place] || []) counts.appendChild(el("li", label));
    box.appendChild(counts);
    const pieces = el("ul", null, "pieces");
    for (const [, id, piece] of piecesAt(view, place)) {
      if (!name(id)) continue;
      const owner = piece.owner && name(piece.owner) ? ` (${name(piece.owner)})` : "";
      pieces.appendChild(el("li", name(id) + owner, piece.owner === state.me ? "mine" : ""));
    }
    box.appendChild(pieces);
    board.appendChild(box);
  }
}

function drawMenu() {
  const ask = document.getElementById("ask");
  const menu = clear(document.getElementById("menu"));
  ask.hidden = !state.menu.length;
  if (!state.menu.length) return;
  let entries = state.menu;
  const labels = [];
  for (const key of path) {
    const group = entries.find((entry) => entry.key === key);
    if (!group || !group.children) { path = []; entries = state.menu; labels.length = 0; break; }
    labels.push(group.label);
    entries = group.children;
  }
  document.getElementById("question").textContent = [state.question, ...labels].join(" ");
  for (const entry of entries) {
    const button = el("button");
    button.type = "button";
    button.dataset.key = entry.key;
    if (!entry.children) button.dataset.leaf = "1";
    button.appendChild(el("kbd", entry.key));
    button.appendChild(el("span", entry.children ? entry.label + " …" : entry.label));
    button.onclick = () => {
      typed = "";
      if (entry.children) { path.push(entry.key); drawMenu(); } else { send([...path, entry.key]); }
    };
    menu.appendChild(button);
  }
  if (path.length) {
    const back = el("button");
    back.type = "button";
    back.dataset.key = "<";
    back.appendChild(el("kbd", "<"));
    back.appendChild(el("span", word("back")));
    back.onclick = () => { path.pop(); drawMenu(); };
    menu.appendChild(back);
  }
}

function drawWaiting() {
  const box = document.getElementById("waiting");
  box.textContent = state.over ? word("over") : state.waiting_text;
}

function drawResult() {
  const box = clear(document.getElementById("result"));
  for (const line of state.scores || []) box.appendChild(el("div", line));
}

function drawMine() {
  const box = clear(document.getElementById("mine"));
  for (const pile of state.board.mine) {
    box.appendChild(el("h2", pile.title));
    for (const entry of pile.entries) if (state.texts[entry]) box.appendChild(el("div", state.texts[entry], "card"));
  }
}

function drawSeats(view) {
  const box = clear(document.getElementById("seats"));
  const table = el("table");
  for (const seat of view.players) {
    const row = el("tr");
    row.appendChild(el("td", name(seat) + (seat === state.me ? " *" : "")));
    row.appendChild(el("td", (state.board.seats[seat] || []).join(" ")));
    table.appendChild(row);
  }
  box.appendChild(table);
}

function drawPiles() {
  const box = clear(document.getElementById("piles"));
  for (const line of state.board.piles) box.appendChild(el("div", line));
}

// Typing a key as at the terminal picks its entry: a key no other key begins with at once,
// else on Enter; `<` or Escape goes back.
document.addEventListener("keydown", (event) => {
  if (!state || !state.menu.length || event.target.tagName === "SELECT") return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Escape" || event.key === "<") { typed = ""; path.pop(); drawMenu(); return; }
  const buttons = [...document.querySelectorAll("#menu button")].filter((b) => b.dataset.key !== "<");
  if (event.key === "Enter") {
    const found = buttons.find((b) => b.dataset.key === typed);
    typed = "";
    if (found) { event.preventDefault(); found.click(); }
    return;
  }
  if (!/^[a-z0-9]$/i.test(event.key)) return;
  typed += event.key.toLowerCase();
  const starting = buttons.filter((b) => b.dataset.key.startsWith(typed));
  if (!starting.length) { typed = ""; return; }
  if (starting.length === 1 && starting[0].dataset.key === typed) { typed = ""; starting[0].click(); }
});

connect();
