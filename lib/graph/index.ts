// Cached diagram layouts per workflow (a machine's layout never changes at run time).
import { findWorkflow } from "../machines/registry";
import { deriveGraph } from "./derive";
import { layoutGraph, type Layout } from "./layout";

const layouts = new Map<string, Promise<Layout>>();

export function workflowLayout(id: string): Promise<Layout> | null {
  const def = findWorkflow(id);
  if (!def) return null;
  let p = layouts.get(id);
  if (!p) {
    p = layoutGraph(deriveGraph(def.machine));
    layouts.set(id, p);
    p.catch(() => layouts.delete(id));
  }
  return p;
}
