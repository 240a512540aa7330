// A state named as people read it on the diagram: its name, not its dotted path (the path is the
// tooltip), breaking between its words where it must wrap. A nested state's name is said after
// its group's ("PLANNING › approval") where the name alone could be read as another state's
// (`withGroup: "shared"`: two states share it) or always.
import type { GraphState } from "@/lib/graph/derive";
import { Breakable } from "@/components/diagram/zoom";

export function StateName({ id, states, withGroup = "shared" }: { id: string; states: Pick<GraphState, "id" | "name" | "parent">[]; withGroup?: "shared" | "always" }) {
  const s = states.find((x) => x.id === id);
  if (!s) return <Breakable text={id} />;
  const shared = states.some((o) => o.id !== s.id && o.name === s.name);
  const parent = s.parent ? states.find((x) => x.id === s.parent) : undefined;
  if (!s.parent || (withGroup === "shared" && !shared)) return <Breakable text={s.name} />;
  return (
    <>
      <span className="text-slate-500 dark:text-slate-400">{parent?.name ?? s.parent} › </span>
      <Breakable text={s.name} />
    </>
  );
}
