// The live page: every update from /api/events replaces the parts it carries. Plain script,
// no library: the page must open on a lecture-hall machine without network.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var last = null;
  var shown = 0;
  var ROTATE_MS = 8000;

  function projector() { return location.hash === '#projector'; }

  function cards(live) {
    if (!live.length) return '<p class="note">No game in progress.</p>';
    return live.map(function (c, i) {
      return '<div class="card" data-id="' + c.id + '">' + c.head + c.svg + '</div>';
    }).join('');
  }

  function showOne() {
    var all = document.querySelectorAll('.card');
    all.forEach(function (c, i) { c.classList.toggle('shown', i === shown % all.length); });
  }

  function render(s) {
    last = s;
    $('progress').textContent = s.progress_text;
    $('badge').textContent = s.progress.running ? 'live' : 'not running';
    $('progress').classList.remove('lost');
    $('tables').innerHTML = s.standings;
    $('sprt').hidden = !s.sprt;
    $('sprt-body').innerHTML = s.sprt;
    $('live').innerHTML = cards(s.live);
    $('recent-body').innerHTML = s.recent;
    if (s.error) $('progress').textContent += ' · ' + s.error;
    document.querySelectorAll('#recent a').forEach(function (a) {
      a.href = a.getAttribute('href').replace(/#.*$/, '') + '#game=' + a.textContent + '&solo=viewer';
    });
    if (projector()) showOne();
  }

  function mode() {
    document.body.classList.toggle('projector', projector());
    if (last) render(last);
  }

  setInterval(function () {
    if (projector()) { shown++; showOne(); }
  }, ROTATE_MS);
  window.addEventListener('hashchange', mode);
  // The state when the page was served, so it shows at once (and in a screenshot).
  last = JSON.parse($('initial').textContent);
  mode();

  var events = new EventSource('/api/events');
  events.onmessage = function (e) { render(JSON.parse(e.data)); };
  // The browser reconnects by itself; say so meanwhile.
  events.onerror = function () {
    $('progress').textContent = 'connection lost (the run may have ended); retrying…';
    $('progress').classList.add('lost');
  };
})();
