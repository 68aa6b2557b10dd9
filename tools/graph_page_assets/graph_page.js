// The delegation picture's page script (tools/graph_page.py): shows a clicked node's details.
// Our own code, inlined into the page; it reads the node data embedded in #graph-data.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var details = document.getElementById("details");

  function add(parent, tag, text, cls) {
    var el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (cls) el.className = cls;
    parent.appendChild(el);
    return el;
  }

  function field(list, name, value) {
    if (value === "" || value === null || value === undefined) return;
    add(list, "dt", name);
    add(list, "dd", String(value));
  }

  function operationsTable(operations) {
    var table = document.createElement("table");
    var keys = [];
    operations.forEach(function (o) {
      Object.keys(o.figures).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
    });
    var head = add(table, "tr");
    ["#", "NNAPI operation", "precision"].concat(keys).forEach(function (k) { add(head, "th", k); });
    operations.forEach(function (o) {
      var row = add(table, "tr", undefined, o.first_divergent ? "first-divergent" : "");
      [String(o.index), o.op, o.precision].forEach(function (v) { add(row, "td", v); });
      keys.forEach(function (k) { add(row, "td", o.figures[k] === undefined ? "-" : o.figures[k]); });
    });
    return table;
  }

  function show(id) {
    var node = data.nodes[id];
    if (!node) return false;
    document.querySelectorAll(".node.selected").forEach(function (el) { el.classList.remove("selected"); });
    document.querySelectorAll(".node").forEach(function (el) {
      if (el.getAttribute("data-id") === id) el.classList.add("selected");
    });
    details.textContent = "";
    add(details, "h3", id);
    var list = add(details, "dl");
    field(list, "op", node.op);
    field(list, "runs on", node.partition === null ? (node.kind === "cpu" ? "CPU (portable kernels)" : node.kind)
                                                  : "NNAPI subgraph " + node.partition);
    field(list, "shape", node.shape);
    field(list, "why not NNAPI", node.reason);
    field(list, "source", node.location);
    field(list, "inputs", node.inputs.join(", "));
    if (node.operations.length) {
      add(details, "h4", "NNAPI operations it emitted");
      details.appendChild(operationsTable(node.operations));
    }
    details.setAttribute("data-shown", id);
    return true;
  }

  document.querySelectorAll(".node").forEach(function (el) {
    var id = el.getAttribute("data-id");
    el.addEventListener("click", function () { show(id); history.replaceState(null, "", "#" + encodeURIComponent(id)); });
    el.addEventListener("keydown", function (e) { if (e.key === "Enter") show(id); });
  });

  function fromHash() {
    if (location.hash.length > 1) show(decodeURIComponent(location.hash.slice(1)));
  }
  window.addEventListener("hashchange", fromHash);
  var first = document.querySelector(".node.first-divergent");
  if (location.hash.length > 1) fromHash();
  else if (first) show(first.getAttribute("data-id"));
  document.body.setAttribute("data-ready", "1");
})();
