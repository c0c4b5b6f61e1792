// Runs templates/static/search.js or compare.js in node over test vectors computed in Python and
// reports every case whose answer differs. Usage: node run_vectors.js <script.js> <vectors.json>
// vectors: {"kind": "search", "index": {...}, "cases": [{"q": "...", "expected": {...}}]}
//       or {"kind": "compare", "cases": [{"mirrors": [...], "expected": {...}}]}
//       or {"kind": "shards", "head": {...}, "shards": {...}, "cases": [{"q": "...", "expected": {"needed", "merged"}}]}
"use strict";
const fs = require("fs");
const path = require("path");

const api = require(path.resolve(process.argv[2]));
const vectors = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));

function firstDifference(a, b, where) {
  if (a === b) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return `${where}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${where}: array vs object`;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return `${where}: expected length ${b.length}, got ${a.length}`;
    for (let i = 0; i < a.length; i++) {
      const found = firstDifference(a[i], b[i], `${where}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of [...keys].sort()) {
    if (!(key in a)) return `${where}.${key}: missing`;
    if (!(key in b)) return `${where}.${key}: unexpected`;
    const found = firstDifference(a[key], b[key], `${where}.${key}`);
    if (found) return found;
  }
  return null;
}

// What the search page does with the index in pieces: the shards a query needs, and their merge.
function shardsOf(q) {
  const needed = api.neededShards(vectors.head, api.parseQuery(vectors.head, q, vocab));
  const chosen = {};
  needed.forEach((name) => { chosen[name] = vectors.shards[name]; });
  return { needed, merged: api.mergeShards(vectors.head, chosen) };
}

const failures = [];
let vocab = null;
if (vectors.kind === "search") vocab = api.vocabulary(vectors.index);
if (vectors.kind === "shards") vocab = api.vocabulary(vectors.head);
vectors.cases.forEach((test, number) => {
  let got;
  try {
    if (vectors.kind === "shards") got = shardsOf(test.q);
    else got = vectors.kind === "search" ? api.search(vectors.index, test.q, vocab) : api.compareRuns(test.mirrors);
  } catch (error) {
    failures.push({ case: number, q: test.q, error: String(error && error.stack || error) });
    return;
  }
  const difference = firstDifference(got, test.expected, "$");
  if (difference) failures.push({ case: number, q: test.q, difference });
});
process.stdout.write(JSON.stringify({ cases: vectors.cases.length, failures }) + "\n");
process.exit(failures.length ? 1 : 0);
