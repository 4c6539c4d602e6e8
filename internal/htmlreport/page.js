(function () {
  "use strict";
  var list = document.getElementById("samples");
  var metric = document.getElementById("f-metric");
  var verdict = document.getElementById("f-verdict");
  var segment = document.getElementById("f-segment");
  var text = document.getElementById("f-text");
  var count = document.getElementById("f-count");
  var metrics = Array.prototype.map.call(metric.options, function (o) { return o.value; }).filter(Boolean);
  var items = Array.prototype.map.call(list.querySelectorAll(".sample"), function (el, i) {
    var v = {};
    metrics.forEach(function (m) { v[m] = "same"; });
    el.getAttribute("data-v").split(" ").forEach(function (kv) {
      var k = kv.lastIndexOf(":");
      if (k > 0) { v[kv.slice(0, k)] = kv.slice(k + 1); }
    });
    return { el: el, i: i, v: v, d: JSON.parse(el.getAttribute("data-d")), seg: JSON.parse(el.getAttribute("data-seg")), text: null };
  });
  var sortedBy = "";

  function matches(x, m, want, seg, q) {
    if (m && want) {
      if (x.v[m] !== want) { return false; }
    } else if (want) {
      if (!Object.keys(x.v).some(function (k) { return x.v[k] === want; })) { return false; }
    } else if (m && (x.v[m] === undefined || x.v[m] === "undefined")) {
      return false;
    }
    if (seg && x.seg.indexOf(seg) < 0) { return false; }
    if (q) {
      if (x.text === null) { x.text = x.el.textContent.toLowerCase(); }
      if (x.text.indexOf(q) < 0) { return false; }
    }
    return true;
  }

  // key is a sample's delta of metric m (0 when unchanged, last when
  // there is none).
  function key(x, m) {
    if (m in x.d) { return x.d[m]; }
    return x.v[m] === "same" ? 0 : Infinity;
  }

  // sortBy orders the samples by metric m's delta, worst first (the page's
  // order when m is empty).
  function sortBy(m) {
    if (m === sortedBy) { return; }
    sortedBy = m;
    var order = items.slice();
    if (m) {
      order.sort(function (a, b) {
        var da = key(a, m), db = key(b, m);
        return da === db ? a.i - b.i : (da < db ? -1 : 1);
      });
    }
    var frag = document.createDocumentFragment();
    order.forEach(function (x) { frag.appendChild(x.el); });
    list.appendChild(frag);
  }

  function apply() {
    var m = metric.value, want = verdict.value, seg = segment.value;
    var q = text.value.trim().toLowerCase();
    var shown = 0;
    items.forEach(function (x) {
      var ok = matches(x, m, want, seg, q);
      x.el.hidden = !ok;
      if (ok) { shown++; }
    });
    sortBy(m);
    count.textContent = shown + " of " + items.length + " samples shown";
    list.setAttribute("data-shown", String(shown));
  }

  [metric, verdict, segment].forEach(function (el) { el.addEventListener("change", apply); });
  text.addEventListener("input", apply);
  document.getElementById("filters").addEventListener("submit", function (e) { e.preventDefault(); });
  apply();
  document.body.setAttribute("data-ready", "1");
})();
