// report.html's script: game list filters and the game viewer. Inlined by
// src/report/html/mod.rs. The viewer applies frames computed by arena (slot values and
// overlay markup per ply); it knows no game rules. URL fragment: #game=ID&ply=N.
(function () {
  'use strict';
  var GAMES = JSON.parse(document.getElementById('game-data').textContent);
  var CLS = JSON.parse(document.getElementById('class-data').textContent);
  var byId = {};
  GAMES.forEach(function (g) { byId[g.id] = g; });
  var $ = function (id) { return document.getElementById(id); };
  var rows = Array.prototype.slice.call(document.querySelectorAll('#games tbody tr'));
  var rowById = {};
  rows.forEach(function (r) { rowById[r.dataset.id] = r; });

  // Filters.
  function filter() {
    var e = $('f-engine').value, b = $('f-board').value, r = $('f-result').value,
      t = $('f-term').value, n = 0;
    rows.forEach(function (row) {
      var d = row.dataset;
      var ok = (!e || d.e1 === e || d.e2 === e) && (!b || d.b === b) &&
        (!r || d.r === r) && (!t || d.t === t);
      row.hidden = !ok;
      if (ok) n++;
    });
    $('f-count').textContent = n + ' games';
  }
  ['f-engine', 'f-board', 'f-result', 'f-term'].forEach(function (id) {
    var el = $(id);
    if (el) el.addEventListener('change', filter);
  });
  rows.forEach(function (row) {
    row.addEventListener('click', function () { location.hash = 'game=' + row.dataset.id; });
  });

  // Viewer state.
  var cur = null; // {g, els, shown, state, ply, row}
  var timer = null;

  function setSlot(c, k, v) {
    var el = c.els[k];
    if (!el) return;
    if (el.dataset.t) el.textContent = v; else el.setAttribute('class', c.cls[v] || '');
  }

  function select(id) {
    var g = byId[id];
    if (!g) {
      $('v-head').textContent = 'Game ' + id + ' is not embedded in this report: rebuild it with ' +
        '`arena report DIR --games all` to embed every game.';
      return false;
    }
    if (cur && cur.g === g) return true;
    var tpl = $('sk-' + g.k);
    var box = $('v-board');
    box.innerHTML = '';
    box.appendChild(tpl.content.cloneNode(true));
    var els = [];
    box.querySelectorAll('[data-s]').forEach(function (el) { els[+el.dataset.s] = el; });
    if (cur && cur.row) cur.row.classList.remove('sel');
    cur = { g: g, els: els, cls: CLS[g.g] || [], shown: [], state: g.s0.slice(), ply: 0,
      row: rowById[g.id], ov: box.querySelector('g.ov') };
    if (cur.row) cur.row.classList.add('sel');
    for (var k = 0; k < g.s0.length; k++) { setSlot(cur, k, g.s0[k]); cur.shown[k] = g.s0[k]; }
    var d = cur.row ? cur.row.dataset : {};
    var cells = cur.row ? cur.row.children : [];
    $('v-head').textContent = 'Game ' + g.id + ' on ' + (d.b || '') + ': ' + (d.e1 || 'first') +
      ' (first) vs ' + (d.e2 || 'second') + ' (second), ' + (d.r || '') + ', ' + (d.t || '') +
      (cells.length > 8 ? ', ' + cells[7].textContent + ' plies' : '') + (g.e ? '. ' + g.e : '');
    $('v-slider').max = g.m.length;
    var moves = $('v-moves');
    moves.innerHTML = '';
    g.m.forEach(function (m, i) {
      var s = document.createElement('span');
      s.textContent = (i % 2 === 0 ? (i / 2 + 1) + '. ' : '') + m;
      s.addEventListener('click', function () { go(i + 1); });
      moves.appendChild(s);
    });
    return true;
  }

  function go(ply, quiet) {
    if (!cur) return;
    var g = cur.g;
    ply = Math.max(0, Math.min(g.m.length, ply));
    if (ply < cur.ply) { cur.state = g.s0.slice(); cur.ply = 0; }
    for (var p = cur.ply; p < ply; p++) {
      var d = g.d[p];
      for (var i = 0; i < d.length; i += 2) cur.state[d[i]] = d[i + 1];
    }
    cur.ply = ply;
    for (var k = 0; k < cur.state.length; k++) {
      if (cur.shown[k] !== cur.state[k]) { setSlot(cur, k, cur.state[k]); cur.shown[k] = cur.state[k]; }
    }
    if (cur.ov) cur.ov.innerHTML = ply > 0 ? g.o[ply - 1] : '';
    $('v-slider').value = ply;
    $('v-ply').textContent = 'ply ' + ply + ' / ' + g.m.length;
    var d2 = cur.row ? cur.row.dataset : {};
    var text;
    if (ply === 0) text = 'Start position; ' + (d2.e1 || 'first') + ' (first) to move.';
    else {
      var who = g.w[ply - 1] === '1' ? (d2.e1 || 'first') + ' (first)' : (d2.e2 || 'second') + ' (second)';
      text = 'Ply ' + ply + ': ' + who + ' played ' + g.m[ply - 1] + '.';
      if (g.n && g.n[ply - 1]) text += ' ' + g.n[ply - 1] + '.';
    }
    if (g.sc.length > ply) {
      text += ' Score ' + g.sc[ply][0] + ' – ' + g.sc[ply][1];
      if (ply > 0) {
        // The mover's gain this ply: cells taken (Seven Colors), seeds captured (Awale).
        var side = g.w[ply - 1] === '1' ? 0 : 1;
        text += ' (+' + (g.sc[ply][side] - g.sc[ply - 1][side]) + ' for the mover)';
      }
      text += '.';
    }
    if (ply === g.m.length && ply > 0) text += ' End: ' + (d2.r || '') + ' (' + (d2.t || '') + ').';
    $('v-caption').textContent = text;
    var spans = $('v-moves').children;
    for (var s = 0; s < spans.length; s++) spans[s].className = s === ply - 1 ? 'cur' : '';
    if (!quiet && history.replaceState) history.replaceState(null, '', '#game=' + g.id + '&ply=' + ply);
  }

  // #solo=SECTION shows only that section (for projecting, and for scripts/screenshot.sh).
  function solo() {
    var m = /solo=([\w-]+)/.exec(location.hash);
    document.querySelectorAll('body > section').forEach(function (s) {
      s.hidden = !!m && s.id !== m[1];
    });
    return !!m;
  }

  // A link to a game shows the viewer, also when the game is not embedded (its head says so).
  function fromHash() {
    var alone = solo();
    var m = /game=(\d+)(?:&ply=(\d+))?/.exec(location.hash);
    if (!m) return;
    if (select(+m[1])) go(m[2] !== undefined ? +m[2] : 0, alone);
    if (!alone) $('viewer').scrollIntoView();
  }
  // The browser's own scroll (restored position, unmatched fragment) comes after this script:
  // scroll again once the page has loaded.
  if (/game=/.test(location.hash) && 'scrollRestoration' in history) {
    history.scrollRestoration = 'manual';
  }
  window.addEventListener('load', function () {
    if (/game=/.test(location.hash) && !solo()) $('viewer').scrollIntoView();
  });

  function stop() { if (timer) { clearInterval(timer); timer = null; $('v-play').textContent = 'play'; } }
  $('v-first').addEventListener('click', function () { stop(); go(0); });
  $('v-prev').addEventListener('click', function () { stop(); if (cur) go(cur.ply - 1); });
  $('v-next').addEventListener('click', function () { stop(); if (cur) go(cur.ply + 1); });
  $('v-last').addEventListener('click', function () { stop(); if (cur) go(cur.g.m.length); });
  $('v-slider').addEventListener('input', function () { stop(); go(+this.value); });
  $('v-play').addEventListener('click', function () {
    if (timer) { stop(); return; }
    if (!cur) return;
    if (cur.ply >= cur.g.m.length) go(0);
    this.textContent = 'pause';
    timer = setInterval(function () {
      if (!cur || cur.ply >= cur.g.m.length) stop(); else go(cur.ply + 1);
    }, 400);
  });
  document.addEventListener('keydown', function (e) {
    if (!cur || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(e.target.tagName)) return;
    var k = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    if (k) { stop(); go(cur.ply + k); e.preventDefault(); }
    else if (e.key === 'Home') { stop(); go(0); e.preventDefault(); }
    else if (e.key === 'End') { stop(); go(cur.g.m.length); e.preventDefault(); }
  });
  window.addEventListener('hashchange', fromHash);
  if (/game=/.test(location.hash)) fromHash();
  else if (solo() && GAMES.length) { select(GAMES[0].id); go(0, true); }
  else if (GAMES.length) { select(GAMES[0].id); go(0, true); }
  // Milliseconds from navigation to a ready viewer (read by scripts/report_scale.sh).
  document.body.dataset.readyMs = Math.round(performance.now());
})();
