// Runs Yosys 0.55 (@yowasp/yosys, WebAssembly, installed by `make deps`) on files of this machine.
//   node fpga/yowasp-yosys.mjs MODULE OUTDIR SCRIPT FILE...
// MODULE is the package's gen/bundle.js. FILE... are read into Yosys's file system under their
// (relative) paths, SCRIPT runs there (`yosys -q -p SCRIPT`), and every file it writes lands in
// OUTDIR under the same relative path. Exits with Yosys's status; its messages go to stderr.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const [module, outdir, script, ...files] = process.argv.slice(2);
if (!module || !outdir || !script) {
  console.error('usage: node yowasp-yosys.mjs MODULE OUTDIR SCRIPT FILE...');
  process.exit(2);
}
const { runYosys, Exit } = await import(pathToFileURL(path.resolve(module)).href);

const tree = {};
for (const f of files) {
  const parts = path.normalize(f).split(path.sep);
  let dir = tree;
  for (const p of parts.slice(0, -1)) dir = (dir[p] ??= {});
  dir[parts[parts.length - 1]] = fs.readFileSync(f);
}
const inputs = new Set(files.map((f) => path.normalize(f)));

function save(t, rel) {
  for (const [name, v] of Object.entries(t)) {
    const p = path.join(rel, name);
    if (v instanceof Uint8Array || typeof v === 'string') {
      if (inputs.has(p)) continue;
      fs.mkdirSync(path.join(outdir, rel), { recursive: true });
      fs.writeFileSync(path.join(outdir, p), v);
    } else {
      save(v, p);
    }
  }
}

const err = (b) => b && process.stderr.write(b);
try {
  save(await runYosys(['-q', '-p', script], tree, { stdout: err, stderr: err }), '');
} catch (e) {
  if (e instanceof Exit) {
    save(e.files, '');
    process.exit(e.code);
  }
  throw e;
}
