// Starts `infermark dashboard` on a free port for the browser tests and resolves with the process
// and the address it printed (or, with INFERMARK_DASHBOARD_MOCK=1, the mock server beside this file).

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export function startDashboard(binary, db, extra = []) {
  return new Promise((resolve, reject) => {
    const mock = process.env.INFERMARK_DASHBOARD_MOCK === '1';
    const proc = mock ? spawn(process.execPath, [path.join(here, 'mock_server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(binary, ['dashboard', '--db', `sqlite:${db}`, '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the dashboard printed no address in 20 s: ${out}`)), 20000);
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/[\w.:[\]-]+\//);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[0] });
      }
    });
    proc.on('exit', (code) => reject(new Error(`the dashboard exited (${code}) before serving: ${out}`)));
  });
}
