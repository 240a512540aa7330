// conversation (docs/guide/15-conversation-and-your-own-workflows.md): a stage machine built from a StateConfig; no effects of its own.
import { builtIn } from "../../lib/machines/built-in";
import { conversation } from "./machine";

export default builtIn({ definition: conversation, order: 5 });
