import { BUILT_IN } from "./lib/machines/registry";
import { deriveGraph } from "./lib/graph/derive";
import { layoutGraph, groupsOf, elkGraphOf, fallbackLayout } from "./lib/graph/layout";
for (const wf of BUILT_IN) {
  const g = deriveGraph(wf.machine);
  const groups = groupsOf(g).map(x=>x.id);
  for (const aspect of ["landscape", "portrait"] as const) {
    const t = Date.now();
    const l = await layoutGraph(g, { aspect });
    const c = await layoutGraph(g, { collapsed: groups, aspect });
    const f = fallbackLayout(elkGraphOf(g, { aspect }));
    console.log(wf.id, aspect, "open", Math.round(l.width), Math.round(l.height), "collapsed", Math.round(c.width), Math.round(c.height), "fallback", Math.round(f.width), Math.round(f.height), Date.now()-t, "ms");
  }
}
