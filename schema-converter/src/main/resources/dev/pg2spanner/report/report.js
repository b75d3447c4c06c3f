(function () {
  'use strict';
  // Script errors anywhere on the page, recorded by the listener the head installs before any other script.
  var errors = window.reportErrors || [];

  // Severity filters: a finding row is shown while its severity's box is ticked.
  var boxes = document.querySelectorAll('input[data-filter-severity]');
  function applyFilters() {
    var shown = {};
    boxes.forEach(function (b) { shown[b.getAttribute('data-filter-severity')] = b.checked; });
    document.querySelectorAll('tr.finding').forEach(function (row) {
      row.classList.toggle('filtered-out', !shown[row.getAttribute('data-severity')]);
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', applyFilters); });
  applyFilters();

  // ?selftest: record what rendered, for the browser test (it reads data-rendered back from the DOM).
  // After the load event and one more turn, so that every later script, resource and CSP report is counted.
  if (/[?&]selftest\b/.test(location.search)) {
    window.addEventListener('load', function () { setTimeout(selftest, 0); });
  }
  function selftest() {
    function sized(selector) {
      var n = 0;
      document.querySelectorAll(selector).forEach(function (el) {
        var r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) { n++; }
      });
      return n;
    }
    // The severity filters, exercised: untick each box in turn and count the finding rows still displayed.
    function displayed() {
      var n = 0;
      document.querySelectorAll('tr.finding').forEach(function (row) {
        if (row.getBoundingClientRect().height > 0) { n++; }
      });
      return n;
    }
    var filters = {all: displayed()};
    boxes.forEach(function (b) {
      b.checked = false;
      b.dispatchEvent(new Event('change'));
      filters[b.getAttribute('data-filter-severity')] = filters.all - displayed();
      b.checked = true;
      b.dispatchEvent(new Event('change'));
    });
    filters.restored = displayed();
    document.body.setAttribute('data-rendered', JSON.stringify({
      filters: filters,
      charts: document.querySelectorAll('svg.skew-chart').length,
      sizedCharts: sized('svg.skew-chart'),
      sizedBars: sized('svg.skew-chart rect.bar'),
      treeItems: document.querySelectorAll('.tree li').length,
      sizedTreeItems: sized('.tree li'),
      findings: document.querySelectorAll('tr.finding').length,
      sizedFindings: sized('tr.finding'),
      errors: errors
    }));
  }
})();
