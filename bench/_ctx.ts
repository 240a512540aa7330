import fs from "node:fs";
const batches = JSON.parse(fs.readFileSync("/tmp/batches.json", "utf8"));
let n = 0;
for (const b of batches.slice(150)) if (b) for (const it of b) for (const [i, args] of it.ops) if (i === 4 && n++ < 1) { console.log(args[3].length, args[4].length); console.log(args[4]); console.log(args[3]); }
