import { FlowEditor } from "@/components/flows/flow-editor";
import { requireViewer } from "@/app/session";

export const metadata = { title: "New workflow" };

export default async function NewWorkflow({ searchParams }: { searchParams: Promise<{ from?: string }> }) {
  await requireViewer();
  const { from } = await searchParams;
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">New workflow</h1>
        <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          Define your own state machine as a Mermaid <code>stateDiagram-v2</code>, or as a StateConfig in YAML or JSON (stages, initial stage, transitions, tools per stage, cooldown, backward threshold, validators). It is checked as you type and drawn on the right; saving stores a new version you can run like any built-in workflow.
        </p>
      </div>
      <FlowEditor from={typeof from === "string" && /^[a-z0-9-]{1,63}$/.test(from) ? from : null} />
    </div>
  );
}
