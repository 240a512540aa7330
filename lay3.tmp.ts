import { BUILT_IN } from "./lib/machines/registry";
import { deriveGraph } from "./lib/graph/derive";
import { labelLine } from "./lib/graph/layout";
const wf = BUILT_IN.find(w => w.id === process.argv[2])!;
const g = deriveGraph(wf.machine);
for (const s of g.states) console.log("S", s.id, s.type, s.initial ? "init" : "");
for (const t of g.transitions) console.log("T", t.source, "->", t.target, t.kind, t.event, "|", labelLine(t));
