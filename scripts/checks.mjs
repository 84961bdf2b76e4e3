// The static checks of `npm test`, run side by side: each is one single-threaded process, so on a machine
// with several cores running them together takes about as long as the slowest. Each check's output is
// printed whole when it ends; the exit code is non-zero when any check failed.
import { spawn } from 'node:child_process';

const CHECKS = [
  ['typecheck', 'tsc', ['--noEmit']],
  ['eslint', 'eslint', ['.']],
  ['prettier', 'prettier', ['--check', '.']],
  ['svc build --check', 'svc', ['build', '--check']],
  ['svc build --check (bench)', 'svc', ['build', '--check', '--dir=bench/spec']],
];

function runCheck([name, command, args]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? 'ok' : `failed (exit ${code})`;
      process.stdout.write(`── ${name}: ${status} in ${seconds} s\n${code === 0 ? '' : output}`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(CHECKS.map(runCheck));
process.exitCode = results.every(Boolean) ? 0 : 1;
