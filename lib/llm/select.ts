// Which model port this process uses: the OpenAI-compatible adapter when an endpoint is
// configured (OPENAI_API_KEY / OPENAI_BASE_URL / SWITCHYARD_LLM_ENDPOINTS), else the offline engine.
import { loadEndpoints, type LlmConfig } from "./endpoints";
import { OfflineModel } from "./offline";
import { OpenAiModel } from "./openai";
import type { ModelPort } from "./types";

export function selectModel(env: NodeJS.ProcessEnv): { model: ModelPort; config: LlmConfig } {
  const config = loadEndpoints(env);
  if (config.endpoints.length === 0) return { model: new OfflineModel(), config };
  return { model: new OpenAiModel(config), config };
}
