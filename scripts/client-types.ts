// npm run client:types — writes the TypeScript client's answer types (clients/typescript/src/api-types.ts)
// from the server's response schemas (lib/api/openapi/client-types.ts).
import fs from "node:fs";
import path from "node:path";
import { clientTypesText } from "../lib/api/openapi/client-types";

export const CLIENT_TYPES_FILE = path.join(import.meta.dirname, "..", "clients", "typescript", "src", "api-types.ts");

fs.writeFileSync(CLIENT_TYPES_FILE, clientTypesText());
console.log(`wrote ${path.relative(process.cwd(), CLIENT_TYPES_FILE)}`);
