// The model port: what every workflow step calls to think. Two adapters implement it: the
// offline engine (deterministic, network-free, the default) and the OpenAI-compatible one.

export interface Passage {
  /** citation id shown to the reader, e.g. "pattern:retry-backoff" */
  id: string;
  title: string;
  text: string;
  score?: number;
}

export interface GenerateRequest {
  /** what the step is for, e.g. "execute" — recorded with usage */
  purpose: string;
  system?: string;
  prompt: string;
  passages?: Passage[];
  signal?: AbortSignal;
  /** called with each chunk of text as it is produced */
  onText?: (chunk: string) => void;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** true when counted by the adapter's estimate rather than reported by a model */
  estimated: boolean;
}

export interface GenerateResult {
  text: string;
  /** who produced it, shown in the UI: "offline engine" or "<model> @ <endpoint>" */
  adapter: string;
  usage: Usage;
  latencyMs: number;
  /** ids of the passages the text quotes */
  citations: string[];
}

export interface ModelPort {
  readonly name: string;
  generate(req: GenerateRequest): Promise<GenerateResult>;
}
