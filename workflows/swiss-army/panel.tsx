// The workflow page's extra panel: the Context Manager this workflow searches and feeds.
import type { Runtime } from "@/lib/runtime";
import { CmPanel } from "@/components/knowledge/cm-panel";

export default function SwissArmyPanel({ rt }: { rt: Runtime }) {
  return <CmPanel rt={rt} />;
}
