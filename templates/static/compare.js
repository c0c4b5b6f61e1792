// KernelIndex compare: the alignment of site_builder/search/compare.py, step for step, over the runs'
// JSON documents. A run's JSON is part of its comparison group's, in its workload's mirror
// (urls.py: run_mirror, <workload mirror>#/groups/<id>/runs/<name>); runDocument assembles the
// run's document from its group as compare.py's run_document does. The page reads ?runs=<digest prefix or run name>,… (2 to 8), finds
// a digest prefix's run through api/v1/runs/by-digest/<first two hex digits>.json and a name's
// through the JSON link of its run page, fetches each run's workload mirror and renders the alignment.
// fetch() cannot read files from file://, so there the page says to serve the site (kernelindex
// serve) instead.
(function (root) {
  "use strict";

  var MIN_RUNS = 2, MAX_RUNS = 8, COMPARE_VERSION = 1;
  var MATERIAL_FIELDS = [
    ["operation", "Kernel"], ["workload", "Workload"], ["protocol", "Protocol (timed pass)"],
    ["environment", "Environment"], ["correctness", "Correctness policy"], ["metric", "Metric"],
    ["comparisonKey", "Comparison key"]
  ];
  var CONTEXT_FIELDS = [
    ["implementation", "Implementation"], ["gpu", "GPU"], ["status", "Status"], ["evidence", "Evidence"],
    ["observedAt", "Observed"], ["value", "Value"]
  ];

  // JSON with sorted keys and no whitespace, as Python's json.dumps(sort_keys=True, separators=(",", ":")).
  function canonical(value) {
    if (value === null || typeof value !== "object") return JSON.stringify(value === undefined ? null : value);
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    return "{" + Object.keys(value).sort().map(function (key) {
      return JSON.stringify(key) + ":" + canonical(value[key]);
    }).join(",") + "}";
  }

  function number(value) { return String(value); }

  function fields(mirror) {
    // The protocol and environment by the digests their group gives (compare.py's _fields).
    var details = mirror.details, row = details.row, cohort = details.cohort;
    var protocol = details.protocol, timed = protocol.timedPass, value = row.value;
    var correctness = details.workload.correctness;
    return {
      operation: [details.operation.url, details.operation.title],
      workload: [details.workload.digest, details.workload.label],
      protocol: [protocol.digest, protocol.title + (timed ? " (" + timed + ")" : "")],
      environment: [details.environment.digest, details.environment.title],
      correctness: [canonical(correctness), String(correctness.comparator !== undefined ? correctness.comparator : "—")],
      metric: [cohort.metric || "none", cohort.metric || "none"],
      comparisonKey: [cohort.key, cohort.key.slice(0, 23) + "…"],
      implementation: [details.implementation.name, details.implementation.title],
      gpu: [cohort.gpu, cohort.gpu],
      status: [details.status, details.status],
      evidence: [row.evidence, row.evidence],
      observedAt: [row.observedAt, row.observedAt.slice(0, 10)],
      value: [canonical(value), value === null ? "—" : (number(value) + " " + (row.unit || "")).trim()]
    };
  }

  function compareRuns(mirrors) {
    if (mirrors.length < MIN_RUNS || mirrors.length > MAX_RUNS) {
      throw new Error("compare needs " + MIN_RUNS + " to " + MAX_RUNS + " runs, not " + mirrors.length);
    }
    var found = mirrors.map(fields);
    var runs = mirrors.map(function (mirror) {
      var details = mirror.details, row = details.row;
      return {
        name: details.name, digest: details.digest, url: mirror.html,
        implementation: details.implementation.title, value: row.value, unit: row.unit,
        statistic: row.statistic, groupRank: row.rank, reasons: row.reasons.slice(),
        comparisonKey: details.cohort.key, groupUrl: details.cohort.url
      };
    });
    var aligned = [], first = null;
    [[true, MATERIAL_FIELDS], [false, CONTEXT_FIELDS]].forEach(function (part) {
      part[1].forEach(function (field) {
        var name = field[0], title = field[1];
        var identities = found.map(function (f) { return f[name][0]; });
        var same = identities.every(function (identity) { return identity === identities[0]; });
        var values = found.map(function (f) { return f[name][1]; });
        aligned.push({ name: name, title: title, material: part[0], same: same, values: values });
        if (part[0] && !same && first === null) first = { field: name, title: title, values: values.slice() };
      });
    });
    var comparable = first === null, ranking = null, notRanked = null;
    if (!comparable) {
      notRanked = "not one comparison group: the " + first.title.toLowerCase() + " differs";
    } else if (runs.some(function (run) { return run.reasons.length || run.value === null; })) {
      notRanked = "may not be ranked: " + runs.filter(function (run) {
        return run.reasons.length || run.value === null;
      }).map(function (run) { return run.name; }).join(", ");
    } else {
      var order = runs.map(function (_, i) { return i; }).sort(function (a, b) {
        return runs[a].value - runs[b].value || a - b;
      });
      var best = runs[order[0]].value, rank = 0, previous = null;
      ranking = order.map(function (i) {
        if (runs[i].value !== previous) { rank += 1; previous = runs[i].value; }
        return { run: runs[i].name, rank: rank, value: runs[i].value, vsBest: best ? runs[i].value / best : null };
      });
    }
    return {
      v: COMPARE_VERSION, runs: runs, fields: aligned, firstDifference: first, comparable: comparable,
      comparisonKey: comparable ? runs[0].comparisonKey : null, ranking: ranking, notRanked: notRanked
    };
  }

  var api = { compareRuns: compareRuns, canonical: canonical, MIN_RUNS: MIN_RUNS, MAX_RUNS: MAX_RUNS };
  if (typeof module === "object" && module.exports) module.exports = api;
  root.KernelIndexCompare = api;

  // ------------------------------------------------------------------------------------------
  // The page

  if (typeof document === "undefined") return;

  var DIGEST = /^(?:sha256:)?([0-9a-f]{6,64})$/;

  function element(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function requested() {
    var params = new URLSearchParams(location.search);
    var text = params.get("runs");
    if (!text && location.hash.indexOf("runs=") >= 0) {
      text = new URLSearchParams(location.hash.slice(1)).get("runs");
    }
    return (text || "").split(",").map(function (id) { return id.trim().toLowerCase(); }).filter(Boolean);
  }

  function getJson(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": HTTP " + response.status);
      return response.json();
    });
  }

  // What a group's document says once for all its runs, by the name a run's details give it, and
  // the fields of its summary that name the group itself (compare.py's _GROUP_SAYS, _GROUP_REF).
  var GROUP_SAYS = {
    operation: ["operation"], workload: ["workload"], protocol: ["protocol"], environment: ["environment"],
    sources: ["sources"], leader: ["comparison", "summary", "leader"], floor: ["comparison", "floor"],
    noFloor: ["comparison", "noFloor"]
  };
  var GROUP_REF = ["key", "label", "url", "gpu", "metric", "ranked", "runs"];

  // A run's document from its group's: what the group says once for all its runs, the run's own
  // details and status, and its ranking row with the row's implementation, name and digest
  // (compare.py's run_document). A superseded run's manifest (run.run) is null.
  function runDocument(group, name) {
    var run = group.runs[name];
    if (!run) throw new Error("group " + group.html + " has no run " + name);
    var comparison = group.comparison;
    var row = comparison.rows.concat(comparison.unranked).filter(function (r) { return r.run === name; })[0];
    var details = {};
    Object.keys(GROUP_SAYS).forEach(function (key) {
      details[key] = GROUP_SAYS[key].reduce(function (node, step) { return node[step]; }, group);
    });
    details.cohort = {};
    GROUP_REF.forEach(function (key) { details.cohort[key] = comparison.summary[key]; });
    Object.keys(run.details).forEach(function (key) { details[key] = run.details[key]; });
    // A correctness check all of the group's runs share is the group's to say (each run's is then null).
    details.correctness = run.details.correctness || group.correctness;
    details.name = name;
    details.status = run.status;
    details.digest = row.digest;
    details.row = row;
    details.implementation = row.implementation;
    return { html: path("page", name), run: run.run, details: details };
  }

  // The value at a JSON Pointer (RFC 6901) in a document.
  function pointed(document, pointer) {
    return pointer.split("/").slice(1).reduce(function (node, token) {
      var key = token.replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, key)) {
        throw new Error("nothing at " + pointer);
      }
      return node[key];
    }, document);
  }

  // A run's JSON from its address: its workload's mirror and a JSON Pointer to the run in one of
  // its groups (#/groups/<id>/runs/<name>).
  function fetchRun(url) {
    var hash = url.indexOf("#"), pointer = decodeURIComponent(url.slice(hash + 1));
    var at = pointer.lastIndexOf(RUNS);
    if (hash < 0 || at < 0) throw new Error(url + " does not point at a run");
    return getJson(url.slice(0, hash)).then(function (document) {
      return runDocument(pointed(document, pointer.slice(0, at)), pointer.slice(at + RUNS.length));
    });
  }
  var RUNS = "/runs/";

  // Where runs live comes from the page's data attributes (urls.py decides them).
  var paths = { page: "runs/{}.html", directory: "api/v1/runs/by-digest/{}.json" };
  function path(kind, value) { return paths[kind].split("{}").join(value); }

  function resolve(rootPath, id) {
    var digest = DIGEST.exec(id);
    var byName = function () {  // the run page's JSON link names its mirror
      var page = new URL(rootPath + path("page", encodeURIComponent(id)), location.href);
      return fetch(page.href).then(function (response) {
        if (!response.ok) throw new Error("no run is named " + id);
        return response.text();
      }).then(function (text) {
        var link = new DOMParser().parseFromString(text, "text/html")
          .querySelector('link[rel="alternate"][type="application/json"]');
        if (!link) throw new Error(page.href + " names no JSON mirror");
        return fetchRun(new URL(link.getAttribute("href"), page).href);
      });
    };
    if (!digest) return byName();
    var prefix = digest[1];
    return getJson(rootPath + path("directory", prefix.slice(0, 2))).then(function (shard) {
      var head = prefix.slice(0, 12);  // the directory keeps 12 hex digits of each digest
      var found = Object.keys(shard.runs).filter(function (key) { return key.indexOf(head) === 0; })
        .map(function (key) { return shard.runs[key]; });
      if (found.length > 1) throw new Error("digest prefix " + id + " names " + found.length + " runs: give more digits");
      if (!found.length) throw new Error("no run has digest " + id);
      return fetchRun(rootPath + found[0]);
    }, byName).then(function (mirror) {
      if (digest && mirror.details.digest.replace("sha256:", "").indexOf(digest[1]) !== 0 &&
          mirror.details.name !== id) {
        throw new Error("run " + mirror.details.name + " does not have digest " + id);
      }
      return mirror;
    });
  }

  function latency(ns) {
    var units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"]];
    for (var i = 0; i < units.length; i++) {
      if (ns >= units[i][0] * 0.9995) {
        var value = ns / units[i][0];
        return (value < 9.995 ? value.toFixed(2) : value.toFixed(1)) + " " + units[i][1];
      }
    }
    return ns.toFixed(0) + " ns";
  }

  function shown(value, unit) {
    if (value === null) return "–";
    return unit === "ns" ? latency(value) : Number(value.toPrecision(4)).toLocaleString("en-US") + " " + (unit || "");
  }

  function render(result, target, rootPath) {
    target.replaceChildren();
    var verdict = result.comparable
      ? "Comparable: every run is in one comparison group."
      : "Not comparable: the first difference is the " + result.firstDifference.title.toLowerCase() + ".";
    target.appendChild(element("p", { class: result.comparable ? "banner" : "banner warn", id: "compare-verdict" }, [verdict]));
    var head = element("tr", {}, [element("th", { scope: "col" }, ["Field"])].concat(result.runs.map(function (run) {
      return element("th", { scope: "col" }, [element("a", { href: rootPath + run.url }, [run.implementation + " · " + run.digest.slice(7, 15)])]);
    })));
    var body = element("tbody");
    result.fields.forEach(function (field) {
      var rowClass = field.same ? "same" : (field.material ? "differs material" : "differs");
      body.appendChild(element("tr", { class: rowClass, "data-field": field.name }, [
        element("th", { scope: "row" }, [field.title + (field.material ? "" : " (context)")])
      ].concat(field.values.map(function (value, i) {
        var run = result.runs[i];
        return element("td", {}, [field.name === "value" ? shown(run.value, run.unit) : value]);
      }))));
    });
    target.appendChild(element("div", { class: "table-wrap" }, [element("table", { class: "compare" }, [
      element("caption", {}, ["Material fields decide whether runs may be ranked together; context fields never do."]),
      element("thead", {}, [head]), body])]));
    if (result.ranking) {
      var list = element("ol", { class: "compare-ranking" });
      result.ranking.forEach(function (entry) {
        var run = result.runs.filter(function (r) { return r.name === entry.run; })[0];
        list.appendChild(element("li", {}, ["#" + entry.rank + " " + run.implementation + " · " + shown(entry.value, run.unit) +
          " · " + (entry.vsBest === null ? "–" : entry.vsBest.toFixed(2) + "× the best")]));
      });
      target.appendChild(element("h2", {}, ["Ranking"]));
      target.appendChild(list);
    } else {
      target.appendChild(element("p", {}, ["Not ranked: " + result.notRanked + "."]));
    }
  }

  function start() {
    var target = document.getElementById("compare-results");
    if (!target) return;
    var rootPath = target.getAttribute("data-root") || "";
    paths.page = target.getAttribute("data-run-page") || paths.page;
    paths.directory = target.getAttribute("data-run-directory") || paths.directory;
    var status = document.getElementById("compare-status");
    var ids = requested();
    var say = function (text) { if (status) status.textContent = text; };
    if (!ids.length) { say("Add ?runs=<digest prefix>,<digest prefix> to the address (2 to 8 runs)."); return; }
    if (ids.length < MIN_RUNS || ids.length > MAX_RUNS) { say("Compare needs 2 to 8 runs; the address names " + ids.length + "."); return; }
    if (location.protocol === "file:" || typeof fetch !== "function") {
      say("Comparing needs the run mirrors, which a browser will not fetch from file://: serve the site (kernelindex serve) and open this page there.");
      return;
    }
    say("Loading " + ids.length + " runs…");
    Promise.all(ids.map(function (id) { return resolve(rootPath, id); })).then(function (mirrors) {
      render(compareRuns(mirrors), target, rootPath);
      say("");
    }).catch(function (error) { say("Could not compare: " + error.message); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof globalThis !== "undefined" ? globalThis : this);
