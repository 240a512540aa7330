// A model for the local OpenAI-compatible test server (./fake-openai) that answers every
// structured-output request with an object generated from the request's own JSON Schema, and a
// plain chat request with a text that quotes it. Every string it writes starts with "model#<n>",
// so a test can follow the model's words into the result. `overrides` replace the generated
// object (or some of its fields) per schema name, for replies that must make sense together
// (a research plan is a DAG).

type Schema = Record<string, any>;

export interface SchemaModel {
  reply: (body: any) => string | object;
  /** schema names (or "chat") of the requests answered, in order */
  seen: string[];
}

const words = (text: string, n: number) => (text.match(/[A-Za-z][A-Za-z-]+/g) ?? []).filter((w) => w.length > 2).slice(0, n).join(" ");

export function schemaModel(overrides: Record<string, (generated: any, prompt: string) => object> = {}): SchemaModel {
  let n = 0;
  const seen: string[] = [];
  const text = (prompt: string, min = 1, max = 400) => {
    n++;
    let s = `model#${n} ${words(prompt, 8)}`;
    while (s.length < min) s += " more";
    return s.slice(0, max);
  };
  const gen = (schema: Schema, root: Schema, prompt: string, key: string): unknown => {
    if (schema.$ref) {
      const path = String(schema.$ref).replace(/^#\//, "").split("/");
      return gen(path.reduce((o: any, p) => o?.[p], root), root, prompt, key);
    }
    const options = schema.anyOf ?? schema.oneOf;
    if (options) return gen(options.find((o: Schema) => o.type !== "null") ?? options[0], root, prompt, key);
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return schema.enum[0];
    const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = gen(v as Schema, root, prompt, k);
        return out;
      }
      case "array": {
        const count = Math.max(schema.minItems ?? 1, 1);
        return Array.from({ length: Math.min(count, schema.maxItems ?? count) }, () => gen(schema.items ?? {}, root, prompt, key));
      }
      case "integer":
      case "number": {
        const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
        const hi = schema.maximum ?? Math.max(lo, 1);
        return type === "integer" ? Math.ceil(lo) : Math.min(hi, Math.max(lo, 0.9));
      }
      case "boolean":
        return false;
      default: {
        if (schema.pattern) return patterned(String(schema.pattern), key);
        return text(prompt, schema.minLength ?? 1, schema.maxLength ?? 400);
      }
    }
  };
  const reply = (body: any) => {
    const messages: { role: string; content: string }[] = body.messages ?? [];
    const prompt = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
    const format = body.response_format;
    if (!format || format.type !== "json_schema") {
      seen.push("chat");
      return `${text(prompt)}. This is the model's answer, citing [1] and [S01].`;
    }
    const name = String(format.json_schema.name);
    seen.push(name);
    const schema = format.json_schema.schema as Schema;
    const generated = gen(schema, schema, prompt, name);
    return overrides[name] ? overrides[name]!(generated, prompt) : (generated as object);
  };
  return { reply, seen };
}

/** A value for the few patterns the workflows' schemas use. */
function patterned(pattern: string, key: string): string {
  if (pattern.includes("[a-z][a-z0-9_]")) return "model_note";
  if (pattern.includes("[PSRC]")) return "P1";
  return key;
}
