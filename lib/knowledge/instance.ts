// The knowledge store of a runtime: the one place that decides how chunks are embedded and when
// the shipped guide is seeded. No runtime import here (the runtime builds its store with this;
// lib/runtime.ts's knowledgeStore() is the process runtime's).
import { KnowledgeStore } from "./documents";
import { seedCorpus } from "./seed-corpus";
import type { Db } from "../db/client";
import type { Provider } from "../db/url";
import type { ModelPort } from "../llm/types";

/** A knowledge store on a database, embedding with the model port when it can embed (the offline
 *  engine cannot: searches are then BM25 only). */
export function knowledgeStoreFor(rt: { db: Db; model: ModelPort; dialect?: Provider }, env: NodeJS.ProcessEnv = process.env): KnowledgeStore {
  const model = rt.model;
  const embed = model.embed ? async (texts: string[]) => (await model.embed!(texts)).vectors : undefined;
  // vectors are only compared with vectors of the same model: name it as precisely as we can
  const embedModel = env.SWITCHYARD_EMBEDDINGS_MODEL?.trim() || model.name;
  return new KnowledgeStore(rt.db, { dialect: rt.dialect, ...(embed ? { embed, embedModel } : {}) });
}

/**
 * A function returning the store, seeded with the shipped guide (docs/guide) on first use when
 * the store is empty and seeding is on. A failure to seed is logged, not thrown; a later call
 * tries again.
 */
export function seededOnFirstUse(store: KnowledgeStore, seed: boolean): () => Promise<KnowledgeStore> {
  let ready: Promise<KnowledgeStore> | null = null;
  return () => {
    ready ??= (async () => {
      if (seed) {
        try {
          await seedCorpus(store);
        } catch (e) {
          console.warn("[knowledge] could not seed the guide:", e instanceof Error ? e.message : e);
          ready = null;
        }
      }
      return store;
    })();
    return ready;
  };
}
