// Save-time warnings: a definition that is valid but would leave runs waiting for
// nobody, said when it is saved rather than found at run time. Kept, not refused:
//   - a composite (or one region of a parallel one) that can never finish on its own: none of its
//     stages ends it, so a run that gets there waits for a TRANSITION out of it;
//   - an `on_error` target that is neither a final stage nor a stage with a step: after a failure
//     the run waits there for a TRANSITION;
//   - a review step whose `due.after_s` is not before its `timeout.after_s`: the run moves on
//     (the timeout) no later than the review falls due, so it is never escalated;
//   - a {{secrets.NAME}} that is not set in this server's environment: the call fails until it is.
import { regionsOf } from "./forks";
import { childrenOf, own, type FlowConfig, type FlowIssue } from "./types";
import { refsOf } from "../steps/template";

/** a stage with no way out that ends its scope (the engine makes it final): lib/flows/machine.ts's rule */
function endsScope(c: FlowConfig, s: string, kids: Map<string, string[]>): boolean {
  const out = own(c.transitions, s) ?? [];
  if (out.length) return false;
  if (kids.has(s)) return finishes(c, s, kids); // a composite with no way out ends its scope once it finishes
  if ((c.ends ?? []).includes(s)) return true;
  for (let p = own(c.parents, s); p !== undefined; p = own(c.parents, p)) if ((own(c.transitions, p) ?? []).length) return false;
  return true;
}

/** whether a composite finishes by itself: every region of it has a stage that ends its scope */
function finishes(c: FlowConfig, composite: string, kids: Map<string, string[]>): boolean {
  return regions(c, composite, kids).every((members) => members.some((m) => endsScope(c, m, kids)));
}

function regions(c: FlowConfig, composite: string, kids: Map<string, string[]>): string[][] {
  const members = kids.get(composite) ?? [];
  const starts = own(c.initials, composite) ?? [];
  return starts.length > 1 ? regionsOf(c, members, starts) : [members];
}

/** The warnings of a valid definition; `env` is this server's environment (leave it out where there is none, as in the browser). */
export function flowWarnings(c: FlowConfig, lines: Record<string, number> = {}, env?: NodeJS.ProcessEnv | Record<string, string | undefined>): FlowIssue[] {
  const out: FlowIssue[] = [];
  const kids = childrenOf(c);
  const steps = c.steps ?? {};
  // a composite that never finishes matters where steps move runs on their own
  if (Object.keys(steps).length) {
    for (const composite of kids.keys()) {
      const parts = regions(c, composite, kids);
      parts.forEach((members, i) => {
        if (members.some((m) => endsScope(c, m, kids))) return;
        const where = parts.length > 1 ? `region ${i + 1} of composite ${composite} (${members.join(", ")})` : `composite ${composite}`;
        const last = members.at(-1)!;
        out.push({
          message: `${where} never finishes on its own: none of its stages ends it, so a run there waits for a TRANSITION out of ${composite}. End it with "${last} --> [*]" inside it (YAML: ends: [${last}])`,
          line: own(lines, composite),
        });
      });
    }
  }
  for (const [stage, spec] of Object.entries(steps)) {
    const to = spec.on_error;
    if (to === undefined || own(steps, to) || kids.has(to)) continue;
    if ((own(c.transitions, to) ?? []).length === 0 && endsScope(c, to, kids)) continue;
    out.push({
      message: `steps.${stage}.on_error: ${to} is neither a final stage nor a stage with a step: after a failure the run waits in ${to} for a TRANSITION. Make ${to} final (no transitions out) or give it a step`,
      line: own(lines, `steps.${stage}.on_error`) ?? own(lines, `steps.${stage}`),
      path: `steps.${stage}.on_error`,
    });
  }
  for (const [stage, spec] of Object.entries(steps)) {
    const due = spec.review?.due?.after_s;
    const timeout = spec.timeout?.after_s;
    if (due === undefined || timeout === undefined || due < timeout) continue;
    out.push({
      message: `steps.${stage}.review.due: after_s ${due} is not before timeout.after_s ${timeout}: the run moves on${spec.timeout?.to ? ` to ${spec.timeout.to}` : ""} when the timeout ends, before the review is due, so it is never escalated. Make due.after_s less than ${timeout}`,
      line: own(lines, `steps.${stage}.review.due`) ?? own(lines, `steps.${stage}.review`) ?? own(lines, `steps.${stage}`),
      path: `steps.${stage}.review.due.after_s`,
    });
  }
  if (env) {
    for (const [stage, spec] of Object.entries(steps)) {
      for (const [header, template] of Object.entries(spec.http?.headers ?? {})) {
        for (const ref of refsOf(template)) {
          if (!ref.startsWith("secrets.")) continue;
          const name = ref.slice(8);
          if (env[`SWITCHYARD_SECRET_${name}`] !== undefined) continue;
          out.push({
            message: `steps.${stage}.http.headers.${header}: secret ${name} is not set in this server's environment (SWITCHYARD_SECRET_${name}): the call fails until it is`,
            line: own(lines, `steps.${stage}.http.headers.${header}`) ?? own(lines, `steps.${stage}`),
            path: `steps.${stage}.http.headers.${header}`,
          });
        }
      }
    }
  }
  return out;
}
