import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // No unit test asserts a speed; a loaded machine must not fail one by the clock.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          environment: 'node',
          // Builds the real helper once (CMake) before any contract test runs.
          globalSetup: ['test/contract/buildHelper.ts'],
          testTimeout: 60_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'ssh',
          include: ['test/ssh/**/*.test.ts'],
          environment: 'node',
          // Each file starts its own sshd on loopback (test/ssh/sshd.ts); the first builds the helper on that "node".
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'slurm',
          include: ['test/slurm/**/*.test.ts'],
          environment: 'node',
          // A real Slurm cluster on this machine (test/slurm/cluster.sh), one slurmd per network namespace.
          globalSetup: ['test/slurm/cluster.ts'],
          // One cluster: its files run one after another.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
