/* sitepack report: the page's code (issue 38; docs/report.md). Draws the JSON object of #sp-data, written by
 * `sitepack report` (src/app/report_html*.c): one section per part of the survey, each plot a Chart.js chart
 * with a table of its numbers beside it, and a 3Dmol.js view per --site. When it is done it writes #sp-status
 * (data-errors: errors seen, data-ms: time to draw, data-load-ms: time since the navigation began) and #sp-layout (the page rectangles of every plot and 3D
 * canvas, JSON), which the tests read (tests/peer/test_report_html.py). Embedded in the page by the build
 * (cmake/embed_assets.c); no network. */
(function () {
  'use strict';
  var errors = window.__spErrors || [];
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('sp-data').textContent);
  var app = document.getElementById('sp-app');
  var COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f',
                '#bab0ac'];
  /* interaction colours (PLIP's names; the 3D views' dashed lines and their legend) */
  var IX_COLORS = {hydrophobic: '#808080', hbond: '#1f4fff', salt_bridge: '#ffd21f', pi_stack_parallel: '#1ca01c',
                   pi_stack_t: '#7fd07f', pi_cation: '#ff7f0e', halogen: '#00c8c8', water_bridge: '#7fbfff',
                   metal: '#a05a2c'};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v)) return String(v);
    return Math.abs(v) >= 100 ? v.toFixed(1) : v.toPrecision(4).replace(/\.?0+$/, '');
  }

  function header() {
    app.appendChild(el('h1', null, 'sitepack report'));
    var p = el('p', {'class': 'meta'});
    p.appendChild(el('span', null, 'file: '));
    p.appendChild(el('code', {id: 'sp-file'}, D.file));
    var r = D.run || {};
    var bits = [];
    if (r.tool_version) bits.push('written by sitepack ' + r.tool_version + (r.git_sha ? ' (' + r.git_sha + ')' : ''));
    if (r.created) bits.push('merged ' + r.created);
    bits.push('report by sitepack ' + D.report_tool_version);
    p.appendChild(el('span', null, ' \u2014 ' + bits.join('; ')));
    app.appendChild(p);
    var nav = el('nav');
    D.sections.forEach(function (s) {
      var a = el('a', {href: '#sec-' + s.id}, s.title);
      nav.appendChild(a);
    });
    if (D.sites.length) nav.appendChild(el('a', {href: '#sec-sites3d'}, '3D sites'));
    app.appendChild(nav);
  }

  function factsTable(sec) {
    var t = el('table', {'class': 'facts', 'data-facts': sec.id});
    sec.facts.forEach(function (f) {
      var tr = el('tr', {'data-key': f.key});
      tr.appendChild(el('th', null, f.label));
      tr.appendChild(el('td', null, fmt(f.value)));
      t.appendChild(tr);
    });
    return t;
  }

  function numbersTable(p) {
    var t = el('table', {'class': 'numbers', 'data-plot': p.id});
    var tr = el('tr');
    tr.appendChild(el('th', null, p.xlabel));
    p.series.forEach(function (s) { tr.appendChild(el('th', null, s.name)); });
    t.appendChild(tr);
    p.labels.forEach(function (lab, i) {
      var row = el('tr');
      row.appendChild(el('td', null, lab));
      p.series.forEach(function (s) { row.appendChild(el('td', null, fmt(s.values[i]))); });
      t.appendChild(row);
    });
    return t;
  }

  function chart(canvas, p) {
    var hbar = p.kind === 'hbar', stacked = p.kind === 'stacked';
    var datasets = p.series.map(function (s, k) {
      return {label: s.name, data: s.values, backgroundColor: COLORS[k % COLORS.length], borderWidth: 0};
    });
    var valueAxis = {beginAtZero: true, stacked: stacked};
    var labelAxis = {stacked: stacked, ticks: {autoSkip: false}, title: {display: true, text: p.xlabel}};
    new Chart(canvas, {
      type: 'bar',
      data: {labels: p.labels, datasets: datasets},
      options: {
        indexAxis: hbar ? 'y' : 'x', animation: false, responsive: false, devicePixelRatio: 1,
        plugins: {legend: {display: p.series.length > 1}, title: {display: false}},
        scales: hbar ? {x: valueAxis, y: labelAxis} : {x: labelAxis, y: valueAxis}
      }
    });
  }

  function plotBox(p) {
    var box = el('div', {'class': 'plot-box', id: 'plot-' + p.id});
    box.appendChild(el('h3', null, p.title));
    var row = el('div', {'class': 'row'});
    var holder = el('div', {'class': 'plot'});
    var rows = Math.max(p.labels.length, 1);
    var h = p.kind === 'hbar' ? Math.max(220, 60 + 22 * rows) : 320;
    var canvas = el('canvas', {width: 640, height: h, 'data-plot': p.id});
    holder.appendChild(canvas);
    row.appendChild(holder);
    var tab = el('div', {'class': 'table-holder'});
    tab.appendChild(numbersTable(p));
    row.appendChild(tab);
    box.appendChild(row);
    return {box: box, canvas: canvas};
  }

  function sections() {
    var pending = [];
    D.sections.forEach(function (sec) {
      var s = el('section', {id: 'sec-' + sec.id, 'data-section': sec.id});
      s.appendChild(el('h2', null, sec.title));
      if (sec.absent) {
        s.appendChild(el('p', {'class': 'absent', 'data-absent': sec.id}, sec.absent));
      } else {
        if (sec.facts) s.appendChild(factsTable(sec));
        sec.plots.forEach(function (p) {
          var b = plotBox(p);
          s.appendChild(b.box);
          pending.push([b.canvas, p]);
        });
      }
      app.appendChild(s);
    });
    pending.forEach(function (x) { chart(x[0], x[1]); });
  }

  /* one PDB ATOM/HETATM record (wwPDB v3.3 columns) of atom row a */
  function pdbLine(a, i) {
    var pad = function (s, n, right) { s = String(s); return right ? (' '.repeat(n) + s).slice(-n) : (s + ' '.repeat(n)).slice(0, n); };
    var name = a[4].length < 4 && a[0].length === 1 ? ' ' + a[4] : a[4];
    return (a[8] === 1 ? 'ATOM  ' : 'HETATM') + pad(i + 1, 5, true) + ' ' + pad(name, 4) + ' ' + pad(a[5].slice(0, 3), 3, true) +
      ' ' + pad(a[6].slice(0, 1) || 'A', 1) + pad(a[7], 4, true) + '    ' + pad(a[1].toFixed(3), 8, true) +
      pad(a[2].toFixed(3), 8, true) + pad(a[3].toFixed(3), 8, true) + '  1.00  0.00          ' + pad(a[0].toUpperCase(), 2, true);
  }

  function siteIds(site) {
    var id = site.id, dl = el('dl', {'class': 'ids', 'data-site': id.site_idx});
    [['site', id.site_idx], ['entry', id.entry_id], ['file', id.path], ['ligand', id.comp_id + ' ' + id.auth_asym_id + '/' +
      id.auth_seq_id + ' (' + id['class'] + ')'], ['residues', id.residues], ['method', id.method],
     ['resolution (A)', id.resolution], ['atoms shown', site.atoms.length], ['interactions', site.interactions.length]]
      .forEach(function (kv) {
        if (kv[1] === undefined) return;
        dl.appendChild(el('dt', null, kv[0]));
        dl.appendChild(el('dd', null, kv[1]));
      });
    return dl;
  }

  function legend(site) {
    var counts = {};
    site.interactions.forEach(function (x) { counts[x[0]] = (counts[x[0]] || 0) + 1; });
    var ul = el('ul', {'class': 'legend'});
    Object.keys(IX_COLORS).forEach(function (t) {
      if (!counts[t]) return;
      var li = el('li', {'data-type': t});
      var sw = el('span', {'class': 'swatch'});
      sw.style.borderTopColor = IX_COLORS[t];
      li.appendChild(sw);
      li.appendChild(el('span', null, t + ' ' + counts[t]));
      ul.appendChild(li);
    });
    [['ligand (green carbons)', '#33cc33'], ['pocket residues', '#b0b0b0'], ['water of a water bridge', '#ff2020']]
      .forEach(function (kv) {
        var li = el('li');
        var sw = el('span', {'class': 'dot'});
        sw.style.background = kv[1];
        li.appendChild(sw);
        li.appendChild(el('span', null, kv[0]));
        ul.appendChild(li);
      });
    return ul;
  }

  function drawSite(div, site) {
    var viewer = $3Dmol.createViewer(div, {backgroundColor: 'white', antialias: true});
    if (!viewer) throw new Error('3Dmol: no WebGL viewer for site ' + site.id.site_idx);
    var pdb = site.atoms.map(pdbLine).join('\n') + '\nEND\n';
    viewer.addModel(pdb, 'pdb');
    var sel = function (kind) {
      var s = [];
      site.atoms.forEach(function (a, i) { if (a[8] === kind) s.push(i + 1); });
      return {serial: s};
    };
    viewer.setStyle({}, {stick: {radius: 0.08, colorscheme: 'grayCarbon'}});
    viewer.setStyle(sel(1), {stick: {radius: 0.1, colorscheme: 'grayCarbon'}});
    viewer.setStyle(sel(2), {stick: {radius: 0.15, colorscheme: 'cyanCarbon'}});
    viewer.setStyle(sel(3), {sphere: {scale: 0.4}});
    viewer.setStyle(sel(4), {sphere: {radius: 0.35, color: '#ff2020'}});
    viewer.setStyle(sel(0), {stick: {radius: 0.25, colorscheme: 'greenCarbon'}});
    var xyz = function (i) { var a = site.atoms[i]; return {x: a[1], y: a[2], z: a[3]}; };
    var dash = function (i, j, color) {
      if (i < 0 || j < 0) return;
      viewer.addCylinder({start: xyz(i), end: xyz(j), radius: 0.07, dashed: true, dashLength: 0.25, gapLength: 0.2,
                          color: color, fromCap: 1, toCap: 1});
    };
    site.interactions.forEach(function (x) {
      var c = IX_COLORS[x[0]] || '#000000';
      if (x[3] >= 0) { dash(x[1], x[3], c); dash(x[3], x[2], c); } else dash(x[1], x[2], c);
    });
    viewer.zoomTo(sel(0));
    viewer.zoom(0.7);
    viewer.render();
  }

  function sites() {
    if (!D.sites.length) return;
    var s = el('section', {id: 'sec-sites3d', 'data-section': 'sites3d'});
    s.appendChild(el('h2', null, '3D sites'));
    app.appendChild(s);
    D.sites.forEach(function (site) {
      var box = el('div', {'class': 'site-box', id: 'site-' + site.id.site_idx});
      box.appendChild(el('h3', null, 'Site ' + site.id.site_idx + ': ' + site.id.comp_id + ' in ' + (site.id.entry_id || site.id.path)));
      var row = el('div', {'class': 'row'});
      var div = el('div', {'class': 'viewer', 'data-site': site.id.site_idx});
      row.appendChild(div);
      var side = el('div', {'class': 'side'});
      side.appendChild(siteIds(site));
      side.appendChild(legend(site));
      row.appendChild(side);
      box.appendChild(row);
      s.appendChild(box);
      drawSite(div, site);
    });
  }

  /* the page rectangles (CSS pixels, from the top of the document) of each plot canvas and 3D view */
  function layout() {
    var out = [];
    var add = function (kind, id, e) {
      var r = e.getBoundingClientRect();
      out.push({kind: kind, id: String(id), x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height});
    };
    document.querySelectorAll('canvas[data-plot]').forEach(function (c) { add('plot', c.getAttribute('data-plot'), c); });
    document.querySelectorAll('div.viewer').forEach(function (v) {
      var c = v.querySelector('canvas');
      add('site', v.getAttribute('data-site'), c || v);
    });
    return out;
  }

  try {
    header();
    sections();
    sites();
  } catch (e) {
    errors.push(String(e && e.stack || e));
  }
  var status = el('div', {id: 'sp-status', 'data-errors': errors.length, 'data-ms': (performance.now() - t0).toFixed(1),
                               'data-load-ms': performance.now().toFixed(1)});
  errors.forEach(function (e) { status.appendChild(el('pre', {'class': 'error'}, e)); });
  var lay = el('pre', {id: 'sp-layout', hidden: 'hidden'}, JSON.stringify({height: document.documentElement.scrollHeight,
                                                                         width: document.documentElement.scrollWidth,
                                                                         items: layout()}));
  document.body.appendChild(status);
  document.body.appendChild(lay);
}());
