// npm run db:migrate — apply pending migrations to DATABASE_URL (default: SQLite under data/).
import "dotenv/config";
import { migrateDatabase } from "../lib/db/migrations";
import { databaseUrl } from "../lib/db/url";

const url = databaseUrl();
const applied = await migrateDatabase(url);
console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date");
