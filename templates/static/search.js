// KernelIndex search: the query parser and matcher of site_builder/search/query.py and match.py,
// step for step, over the same compact index (api/v1/search-index.json, the head, and a shard per
// operation in api/v1/search/, merged as site_builder/search/shards.py merges). The tests run this file
// in node against answers computed in Python (tests/discover/test_search_js.py), so the two
// implementations cannot drift apart. No framework, no network beyond the index itself.
(function (root) {
  "use strict";

  var KINDS = ["family", "op", "model", "gpu", "dtype", "lang", "pass", "metric", "evidence", "flag", "license"];
  var FACET_PREFIXES = {
    op: "op", operation: "op", kernel: "op", family: "family", model: "model", gpu: "gpu", hw: "gpu",
    dtype: "dtype", lang: "lang", language: "lang", pass: "pass", metric: "metric", evidence: "evidence",
    trust: "evidence", license: "license", is: "flag"
  };
  var DTYPE_SYNONYMS = [["bfloat16", "bf16"], ["float16", "fp16"], ["half", "fp16"], ["float32", "fp32"],
                        ["float64", "fp64"], ["double", "fp64"], ["float8", "fp8"]];
  var FLAGS = ["installable", "source", "usable"];
  var IMPL_SOURCE = 1, IMPL_INSTALLABLE = 2, ROW_USABLE = 4;
  var VALUE = /^([0-9]{1,15})(k?)$/;
  var SPACED = /[ \t\n\r\f\v]*([=:])[ \t\n\r\f\v]*/g;
  var SPLIT = /[ \t\n\r\f\v,]+/;

  function has(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function variants(word) { return [word, word.split("-").join("_"), word.split("_").join("-")]; }

  function vocabulary(index) {
    var vocab = {};
    KINDS.forEach(function (kind) { vocab[kind] = {}; });
    function add(kind, word, value) {
      word = word.toLowerCase();
      if (!has(vocab[kind], word)) vocab[kind][word] = [];
      if (vocab[kind][word].indexOf(value) < 0) vocab[kind][word].push(value);
    }
    index.fam.forEach(function (family) { add("family", family, family); });
    index.op.forEach(function (op) {
      [op[0]].concat(op[4]).forEach(function (word) {
        variants(word.toLowerCase()).forEach(function (variant) { add("op", variant, op[0]); });
      });
    });
    index.mdl.forEach(function (model) { add("model", model, model); });
    index.gpu.forEach(function (gpu) { gpu[2].forEach(function (alias) { add("gpu", alias, gpu[0]); }); });
    index.dt.forEach(function (dtype) { add("dtype", dtype, dtype); });
    DTYPE_SYNONYMS.forEach(function (pair) { if (index.dt.indexOf(pair[1]) >= 0) add("dtype", pair[0], pair[1]); });
    index.lang.forEach(function (language) { if (language !== "unknown") add("lang", language, language); });
    index.pas.forEach(function (name) { add("pass", name, name); });
    index.met.forEach(function (metric) { add("metric", metric.split(":")[0], metric); });
    index.ev.forEach(function (level) { add("evidence", level, level); });
    FLAGS.forEach(function (flag) { add("flag", flag, flag); });
    index.lic.forEach(function (license) { add("license", license, license); });
    KINDS.forEach(function (kind) {
      Object.keys(vocab[kind]).forEach(function (word) { vocab[kind][word].sort(); });
    });
    return vocab;
  }

  function parseValue(text) {
    var found = VALUE.exec(text);
    if (!found) return null;
    return parseInt(found[1], 10) * (found[2] ? 1024 : 1);
  }

  function contains(index, op, word) {
    var haystack = [op[0], op[1].toLowerCase()].concat(op[4], op[3].map(function (m) { return index.mdl[m]; }));
    return haystack.some(function (text) { return text.indexOf(word) >= 0; });
  }

  function sortedKeys(set) { return Object.keys(set).sort(); }

  function parseQuery(index, text, vocab) {
    vocab = vocab || vocabulary(index);
    var tokens = text.toLowerCase().replace(SPACED, "$1").split(SPLIT).filter(function (t) { return t; });
    var facets = {};
    KINDS.forEach(function (kind) { if (kind !== "evidence") facets[kind] = {}; });
    var evidence = -1, free = [], axes = [], terms = [], unknown = [];
    var token;

    function bind(key, value) {
      key = key.split("-").join("_");
      for (var i = 0; i < axes.length; i++) {
        if (axes[i][0] === key) { axes.splice(i, 1); break; }
      }
      axes.push([key, value]);
      terms.push([token, "axis"]);
    }
    function take(kind, values) {
      if (kind === "evidence") {
        values.forEach(function (v) { evidence = Math.max(evidence, index.ev.indexOf(v)); });
      } else {
        values.forEach(function (v) { facets[kind][v] = true; });
      }
      terms.push([token, kind]);
    }

    tokens.forEach(function (t) {
      token = t;
      var at = token.indexOf("="), value, prefix, raw, kind;
      if (at >= 0) {
        value = parseValue(token.slice(at + 1));
        if (at > 0 && value !== null) bind(token.slice(0, at), value);
        else unknown.push(token);
        return;
      }
      at = token.indexOf(":");
      if (at >= 0) {
        prefix = token.slice(0, at);
        raw = token.slice(at + 1);
        kind = has(FACET_PREFIXES, prefix) ? FACET_PREFIXES[prefix] : null;
        if (kind !== null && has(vocab[kind], raw)) take(kind, vocab[kind][raw]);
        else if (kind === null && prefix && parseValue(raw) !== null) bind(prefix, parseValue(raw));
        else unknown.push(token);
        return;
      }
      if (parseValue(token) !== null) { unknown.push(token); return; }
      for (var i = 0; i < KINDS.length; i++) {
        if (has(vocab[KINDS[i]], token)) { take(KINDS[i], vocab[KINDS[i]][token]); return; }
      }
      var matched = {}, any = false;
      index.op.forEach(function (op) { if (contains(index, op, token)) { matched[op[0]] = true; any = true; } });
      if (any) { free.push(matched); terms.push([token, "text"]); }
      else unknown.push(token);
    });

    var constraints = [];
    if (Object.keys(facets.op).length) constraints.push(facets.op);
    if (Object.keys(facets.family).length) {
      var byFamily = {};
      index.op.forEach(function (op) { if (has(facets.family, index.fam[op[2]])) byFamily[op[0]] = true; });
      constraints.push(byFamily);
    }
    if (Object.keys(facets.model).length) {
      var byModel = {};
      index.op.forEach(function (op) {
        if (op[3].some(function (m) { return has(facets.model, index.mdl[m]); })) byModel[op[0]] = true;
      });
      constraints.push(byModel);
    }
    constraints = constraints.concat(free);
    var scope = null;
    if (constraints.length) {
      scope = index.op.map(function (op) { return op[0]; }).filter(function (name) {
        return constraints.every(function (set) { return has(set, name); });
      });
    }
    return {
      ops: scope,
      gpu: sortedKeys(facets.gpu),
      dtype: sortedKeys(facets.dtype),
      lang: sortedKeys(facets.lang),
      pass: sortedKeys(facets.pass),
      metric: sortedKeys(facets.metric),
      license: sortedKeys(facets.license),
      evidence: evidence >= 0 ? index.ev[evidence] : null,
      flags: sortedKeys(facets.flag),
      axes: axes,
      terms: terms,
      unknown: unknown
    };
  }

  function rowFilter(index, query) {
    var minimum = query.evidence ? index.ev.indexOf(query.evidence) : 0;
    function wants(flag) { return query.flags.indexOf(flag) >= 0; }
    return function (impl, rowFlags) {
      var implementation = index.im[impl];
      if (query.lang.length && query.lang.indexOf(index.lang[implementation[1]]) < 0) return false;
      if (query.license.length && (implementation[2] < 0 || query.license.indexOf(index.lic[implementation[2]]) < 0)) return false;
      if ((rowFlags & 3) < minimum) return false;
      if (wants("installable") && !(implementation[3] & IMPL_INSTALLABLE)) return false;
      if (wants("source") && !(implementation[3] & IMPL_SOURCE)) return false;
      if (wants("usable") && !(rowFlags & ROW_USABLE)) return false;
      return true;
    };
  }

  function resolveAxis(op, key) {
    var aliases = op[6];
    if (has(aliases, key)) return aliases[key];
    var bare = key.split("_").join("");
    return has(aliases, bare) ? aliases[bare] : null;
  }

  function search(index, text, vocab) {
    var query = parseQuery(index, text, vocab || vocabulary(index));
    var result = { query: query, exact: [], compatible: [], brackets: [], refused: null, dropped: 0 };
    if (!query.terms.length) return result;
    var scope = query.ops;
    var keep = rowFilter(index, query);
    var candidates = [];
    index.co.forEach(function (cohort, position) {
      var workload = index.wl[cohort[0]], lane = index.ln[cohort[1]], op = index.op[lane[0]];
      if (scope !== null && scope.indexOf(op[0]) < 0) return;
      if (query.pass.length && (lane[2] < 0 || query.pass.indexOf(index.pas[lane[2]]) < 0)) return;
      if (query.metric.length && query.metric.indexOf(index.met[lane[3]]) < 0) return;
      var values = cohort[4], rows = [];
      for (var i = 0; i < values.length / 3; i++) {
        if (keep(values[3 * i], values[3 * i + 2])) rows.push(i);
      }
      if (!rows.length) { result.dropped += 1; return; }
      var differs = [];
      var slug = index.gpu[lane[1]][0];
      if (query.gpu.length && query.gpu.indexOf(slug) < 0) differs.push(["gpu", "gpu", query.gpu, slug]);
      var dtype = workload[1] >= 0 ? index.dt[workload[1]] : null;
      if (query.dtype.length && query.dtype.indexOf(dtype) < 0) differs.push(["dtype", "dtype", query.dtype, dtype]);
      query.axes.forEach(function (pair) {
        var axis = resolveAxis(op, pair[0]);
        if (axis === null || typeof workload[2] === "string") {
          differs.push(["axis", axis !== null ? op[5][axis] : pair[0], pair[1], null]);
          return;
        }
        var found = workload[2][axis];
        if (found !== pair[1]) differs.push(["axis", op[5][axis], pair[1], found]);
      });
      if (differs.length) {
        result.compatible.push({ c: position, rows: rows, differs: differs });
        candidates.push([position, differs]);
      } else {
        result.exact.push({ c: position, rows: rows });
      }
    });
    result.compatible.sort(function (a, b) { return a.differs.length - b.differs.length; });
    if (!result.exact.length && query.axes.length) {
      var found = brackets(index, candidates);
      result.brackets = found[0];
      result.refused = found[1];
    }
    return result;
  }

  function brackets(index, candidates) {
    var groups = new Map(), refused = {};
    candidates.forEach(function (candidate) {
      var position = candidate[0], differs = candidate[1];
      if (differs.some(function (d) { return d[0] !== "axis" || d[3] === null; })) return;
      if (differs.length > 1) { differs.forEach(function (d) { refused[d[1]] = true; }); return; }
      var name = differs[0][1], asked = differs[0][2], found = differs[0][3];
      var cohort = index.co[position], workload = index.wl[cohort[0]];
      var axis = index.op[index.ln[cohort[1]][0]][5].indexOf(name);
      var rest = workload[2].slice(0, axis).concat(workload[2].slice(axis + 1));
      var key = JSON.stringify([cohort[1], axis, workload[1], rest]);
      var group = groups.get(key);
      if (!group) { group = { axis: name, asked: asked, below: null, above: null }; groups.set(key, group); }
      if (found < asked) {
        if (group.below === null || found > group.below.v) group.below = { c: position, v: found };
      } else if (group.above === null || found < group.above.v) {
        group.above = { c: position, v: found };
      }
    });
    var list = Array.from(groups.values());
    if (list.length) return [list, null];
    var names = Object.keys(refused).sort();
    return [[], names.length ? names : null];
  }

  // ------------------------------------------------------------------------------------------
  // Reading the index for display

  function cohortLabel(index, cohort) {
    var suffix = index.lb[cohort[2]];
    if (suffix.charAt(0) === "!") return suffix.slice(1);
    var gpuLabel = index.gpu[index.ln[cohort[1]][1]][1];
    return suffix ? gpuLabel + " · " + suffix : gpuLabel;
  }

  function workloadLabel(index, workload) {
    if (typeof workload[2] === "string") return workload[2];
    var op = index.op[workload[0]];
    var parts = op[5].map(function (axis, i) { return axis + " = " + workload[2][i]; });
    if (workload[1] >= 0) parts.push(index.dt[workload[1]]);
    return parts.join(" · ");
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

  function measure(value, metric) {
    var unit = metric.split(":")[2];
    if (unit === "ns") return latency(value);
    return Number(value.toPrecision(4)).toLocaleString("en-US") + " " + unit;
  }

  // ------------------------------------------------------------------------------------------
  // The index in pieces (site_builder/search/shards.py): a head, and a shard per operation.

  function mergeShards(head, shards) {
    var merged = {};
    Object.keys(head).forEach(function (key) { if (key !== "sh") merged[key] = head[key]; });
    merged.wl = []; merged.ln = []; merged.co = [];
    head.op.forEach(function (op) {
      if (!has(shards, op[0])) return;
      var shard = shards[op[0]], wlOffset = merged.wl.length, lnOffset = merged.ln.length;
      merged.wl = merged.wl.concat(shard.wl);
      merged.ln = merged.ln.concat(shard.ln);
      shard.co.forEach(function (cohort) {
        merged.co.push([cohort[0] + wlOffset, cohort[1] + lnOffset].concat(cohort.slice(2)));
      });
    });
    return merged;
  }

  function neededShards(head, query) {
    if (!query.terms.length) return [];
    return head.op.filter(function (op, position) {
      return head.sh[position] > 0 && (query.ops === null || query.ops.indexOf(op[0]) >= 0);
    }).map(function (op) { return op[0]; });
  }

  var api = {
    vocabulary: vocabulary, parseQuery: parseQuery, search: search, parseValue: parseValue,
    cohortLabel: cohortLabel, workloadLabel: workloadLabel, measure: measure,
    mergeShards: mergeShards, neededShards: neededShards
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  root.KernelIndexSearch = api;

  // ------------------------------------------------------------------------------------------
  // The page: read ?q=, load the index, render the answer (DOM nodes and textContent only).

  if (typeof document === "undefined") return;

  var MAX_SHOWN = 40;

  function element(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function link(href, text) { return element("a", { href: href }, [text]); }

  // Page paths come from the form's data attributes (urls.py decides them): "kernels/{}.html" …
  var paths = { kernel: "kernels/{}.html", group: "groups/{}.html", shard: "api/v1/search/{}.json",
                shardScript: "static/search/{}.js" };
  function path(kind, value) { return paths[kind].split("{}").join(value); }

  // A script that sets a global: what file:// pages can load, where fetch cannot read files.
  function viaScript(src, loaded) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.onload = function () {
        var value = loaded();
        if (value) resolve(value);
        else reject(new Error("the search index did not load"));
      };
      script.onerror = function () { reject(new Error("the search index could not be loaded")); };
      document.head.appendChild(script);
    });
  }

  function fetchJson(url, fallback) {
    if (location.protocol === "file:" || typeof fetch !== "function") return fallback();
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).catch(fallback);
  }

  function loadIndex(form) {
    if (root.KERNELINDEX_SEARCH_INDEX) return Promise.resolve(root.KERNELINDEX_SEARCH_INDEX);
    return fetchJson(form.getAttribute("data-index"), function () {
      return viaScript(form.getAttribute("data-index-script"), function () { return root.KERNELINDEX_SEARCH_INDEX; });
    });
  }

  // The shards a query needs, each fetched once per page.
  var shardCache = {};
  function loadShard(form, rootPath, name) {
    if (!has(shardCache, name)) {
      var preloaded = root.KERNELINDEX_SEARCH_SHARDS;
      if (preloaded && has(preloaded, name)) shardCache[name] = Promise.resolve(preloaded[name]);
      else {
        shardCache[name] = fetchJson(rootPath + path("shard", name), function () {
          return viaScript(rootPath + path("shardScript", name), function () {
            var loaded = root.KERNELINDEX_SEARCH_SHARDS;
            return loaded && has(loaded, name) ? loaded[name] : null;
          });
        });
      }
    }
    return shardCache[name];
  }

  function loadShards(form, rootPath, head, vocab, text) {
    var names = neededShards(head, parseQuery(head, text, vocab));
    return Promise.all(names.map(function (name) { return loadShard(form, rootPath, name); })).then(function (found) {
      var shards = {};
      names.forEach(function (name, i) { shards[name] = found[i]; });
      return mergeShards(head, shards);
    });
  }

  function describeDiffer(index, d) {
    if (d[0] === "gpu") {
      var labels = {};
      index.gpu.forEach(function (g) { labels[g[0]] = g[1]; });
      return "GPU " + labels[d[3]] + " (asked " + d[2].map(function (s) { return labels[s]; }).join(" or ") + ")";
    }
    if (d[0] === "dtype") return "dtype " + (d[3] || "none") + " (asked " + d[2].join(" or ") + ")";
    if (d[3] === null) return d[1] + " not a single declared axis here (asked " + d[2] + ")";
    return d[1] + " = " + d[3] + " (asked " + d[2] + ")";
  }

  function resultTable(index, rootPath, entries, caption, withDiffers) {
    var head = ["Kernel", "Workload", "Group", "Best match", "Value", "Rank", "Evidence"];
    if (withDiffers) head.push("What differs");
    var thead = element("thead", {}, [element("tr", {}, head.map(function (h) {
      return element("th", { scope: "col", class: h === "Value" ? "num" : "" }, [h]);
    }))]);
    var tbody = element("tbody");
    entries.slice(0, MAX_SHOWN).forEach(function (entry) {
      var cohort = index.co[entry.c], workload = index.wl[cohort[0]], lane = index.ln[cohort[1]];
      var op = index.op[lane[0]], values = cohort[4], first = entry.rows[0];
      var impl = index.im[values[3 * first]], value = values[3 * first + 1];
      var rank = 1;
      for (var i = 1; i <= first; i++) if (values[3 * i + 1] !== values[3 * (i - 1) + 1]) rank += 1;
      var cells = [
        element("td", {}, [link(rootPath + path("kernel", op[0]), op[1])]),
        element("td", {}, [workloadLabel(index, workload)]),
        element("td", {}, [link(rootPath + path("group", cohort[3]), cohortLabel(index, cohort))]),
        element("td", {}, [impl[0]].concat(entry.rows.length > 1 ? [element("span", { class: "sub" }, [
          entry.rows.length + " of " + values.length / 3 + " rows match"])] : [])),
        element("td", { class: "num" }, [measure(value, index.met[lane[3]])]),
        element("td", {}, ["#" + rank + " of " + values.length / 3]),
        element("td", {}, [index.ev[values[3 * first + 2] & 3]])
      ];
      if (withDiffers) {
        cells.push(element("td", {}, [entry.differs.map(function (d) { return describeDiffer(index, d); }).join("; ")]));
      }
      tbody.appendChild(element("tr", { "data-group": cohort[3] }, cells));
    });
    var table = element("table", { class: "search-results" }, [element("caption", {}, [caption]), thead, tbody]);
    var wrap = element("div", { class: "table-wrap" }, [table]);
    if (entries.length > MAX_SHOWN) {
      return element("div", {}, [wrap, element("p", { class: "quiet" }, [
        (entries.length - MAX_SHOWN) + " more not shown: add a GPU, dtype or axis (name=value) to narrow the query."])]);
    }
    return wrap;
  }

  function bracketTable(index, rootPath, found) {
    // Brackets with a measured shape on both sides first; the algorithm's order otherwise.
    var ordered = found.filter(function (b) { return b.below && b.above; })
      .concat(found.filter(function (b) { return !(b.below && b.above); }));
    function side(entry) {
      if (!entry) return element("td", { class: "quiet" }, ["nothing measured"]);
      var co = index.co[entry.c], lane = index.ln[co[1]];
      return element("td", {}, [
        link(rootPath + path("group", co[3]), String(entry.v)),
        " · " + index.im[co[4][0]][0] + " " + measure(co[4][1], index.met[lane[3]])]);
    }
    var tbody = element("tbody");
    ordered.slice(0, MAX_SHOWN).forEach(function (bracket) {
      var any = bracket.below || bracket.above;
      var cohort = index.co[any.c], workload = index.wl[cohort[0]], op = index.op[index.ln[cohort[1]][0]];
      var axis = op[5].indexOf(bracket.axis);
      var shape = op[5].map(function (name, i) { return name + " = " + (i === axis ? bracket.asked + "?" : workload[2][i]); });
      if (workload[1] >= 0) shape.push(index.dt[workload[1]]);
      tbody.appendChild(element("tr", {}, [
        element("td", {}, [link(rootPath + path("kernel", op[0]), op[1])]),
        element("td", {}, [shape.join(" · ")]),
        element("td", {}, [cohortLabel(index, cohort)]),
        side(bracket.below), side(bracket.above)]));
    });
    var head = ["Kernel", "Shape asked", "Group", "Nearest below", "Nearest above"];
    var table = element("table", { class: "brackets" }, [
      element("caption", {}, ["Never measured at this value: the nearest measured shapes on either side (every other axis equal)"]),
      element("thead", {}, [element("tr", {}, head.map(function (h) { return element("th", { scope: "col" }, [h]); }))]),
      tbody]);
    return element("div", { class: "table-wrap" }, [table]);
  }

  function render(index, vocab, text, target, rootPath) {
    target.replaceChildren();
    if (!text.trim()) return;
    var answer = search(index, text, vocab);
    var query = answer.query;
    var notes = element("p", { class: "search-terms" });
    notes.appendChild(document.createTextNode("Understood: " + (query.terms.length ? query.terms.map(function (t) {
      return t[0] + " (" + t[1] + ")";
    }).join(", ") : "nothing") + "."));
    if (query.unknown.length) notes.appendChild(document.createTextNode(" Not understood, ignored: " + query.unknown.join(", ") + "."));
    target.appendChild(notes);
    if (!query.terms.length) return;
    if (query.ops !== null && !query.ops.length) {
      target.appendChild(element("p", {}, ["No kernel matches every kernel word of the query."]));
      return;
    }
    target.appendChild(element("h2", { id: "exact-title" }, ["Exact matches (" + answer.exact.length + ")"]));
    if (answer.exact.length) target.appendChild(resultTable(index, rootPath, answer.exact, "Comparison groups that measured exactly what you asked", false));
    else target.appendChild(element("p", {}, ["Nothing measured exactly what you asked."]));
    if (answer.brackets.length) {
      target.appendChild(element("h2", {}, ["Nearest measured shapes"]));
      target.appendChild(bracketTable(index, rootPath, answer.brackets));
    }
    if (answer.refused) {
      target.appendChild(element("p", { class: "banner" }, [
        "No bracketing: the nearest measured shapes differ in more than one axis (" + answer.refused.join(", ") +
        "), and interpolating across two axes would be a guess."]));
    }
    if (answer.compatible.length) {
      target.appendChild(element("h2", {}, ["Compatible, with what differs (" + answer.compatible.length + ")"]));
      target.appendChild(resultTable(index, rootPath, answer.compatible, "Fewest differences first", true));
    }
    if (answer.dropped) {
      target.appendChild(element("p", { class: "quiet" }, [answer.dropped + " comparison group" + (answer.dropped === 1 ? "" : "s") +
        " matched but had no run passing the language, license, evidence, installable, source or usable filters."]));
    }
  }

  function start() {
    var form = document.getElementById("search-form");
    var target = document.getElementById("search-results");
    if (!form || !target) return;
    var input = form.querySelector("input[name=q]");
    var rootPath = form.getAttribute("data-root") || "";
    paths.kernel = form.getAttribute("data-kernel-url") || paths.kernel;
    paths.group = form.getAttribute("data-group-url") || paths.group;
    paths.shard = form.getAttribute("data-shard-url") || paths.shard;
    paths.shardScript = form.getAttribute("data-shard-script") || paths.shardScript;
    var params = new URLSearchParams(location.search);
    if (params.get("q")) input.value = params.get("q");
    var status = document.getElementById("search-status");
    loadIndex(form).then(function (head) {
      var vocab = vocabulary(head);
      var asked = 0;
      var run = function () {
        var text = input.value, ticket = ++asked;
        loadShards(form, rootPath, head, vocab, text).then(function (index) {
          if (ticket === asked) render(index, vocab, text, target, rootPath);  // a later query may have answered first
        }).catch(function (error) {
          if (status) status.textContent = "Search is unavailable (" + error.message + "); browse the lists below.";
        });
      };
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var url = new URL(location.href);
        url.searchParams.set("q", input.value);
        try { history.replaceState(null, "", url.toString()); } catch (error) { /* file:// may refuse */ }
        run();
      });
      var groups = head.sh.reduce(function (sum, count) { return sum + count; }, 0);
      if (status) status.textContent = "Search index loaded: " + groups + " comparison groups.";
      run();
    }).catch(function (error) {
      if (status) status.textContent = "Search is unavailable (" + error.message + "); browse the lists below.";
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof globalThis !== "undefined" ? globalThis : this);
