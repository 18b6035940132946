// Loaded with `node --import` (NODE_OPTIONS allows it; `--cpu-prof` it does not): a daemon
// (serve-main.js) started with FATHOM_CPU_PROFILE_DIR set samples its thread every 2 ms from its
// first module on and writes `daemon-PID.cpuprofile` there when it exits (Chrome DevTools reads
// it). Other processes are left alone. For benches that profile the daemon a CLI starts
// (team-join-bench's FATHOM_JOIN_PROFILE).
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const folder = process.env.FATHOM_CPU_PROFILE_DIR;
if (folder && process.argv.some((argument) => argument.endsWith('serve-main.js'))) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 2_000 });
  session.post('Profiler.start');
  // A session in this thread answers at once: the profile is written before the process ends.
  process.on('exit', () =>
    session.post('Profiler.stop', (error, result) => {
      if (!error) fs.writeFileSync(path.join(folder, `daemon-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    }),
  );
}
