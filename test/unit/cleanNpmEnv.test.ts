// The environment of the nested npm installs of scripts/vscode/provision.mjs (Node 24, the
// VS Code server): nothing an outer `npm start` / `npm test` set may leak into them.
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import { cleanNpmEnv } from '../../scripts/vscode/provision.mjs';

type Env = Record<string, string>;
const clean = cleanNpmEnv as (env: Env, options?: { prependPath?: string[]; set?: Env }) => Env;

/** What `npm start` in /work/repo adds to a user's environment (as npm 11 sets it). */
const outerNpm: Env = {
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_config_nodedir: '/usr',
  npm_config_prefix: '/usr',
  npm_config_local_prefix: '/work/repo',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_node_execpath: '/usr/bin/node',
  npm_lifecycle_event: 'start',
  npm_package_json: '/work/repo/package.json',
  npm_command: 'run',
  NPM_CONFIG_LOGLEVEL: 'silent',
  Npm_Config_Foo: 'bar',
  INIT_CWD: '/work/repo',
  NODE: '/usr/bin/node',
  COLOR: '0',
};
const user: Env = {
  HOME: '/home/alice',
  HTTP_PROXY: 'http://proxy:3128',
  HTTPS_PROXY: 'http://proxy:3128',
  NO_PROXY: 'localhost',
  LANG: 'C.UTF-8',
  PATH: '/usr/local/bin:/usr/bin:/bin',
};
const npmPath =
  '/work/repo/node_modules/.bin:/work/node_modules/.bin:/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin';

describe('cleanNpmEnv', () => {
  it('drops every variable an outer npm set, in any case', () => {
    const env = clean({ ...user, ...outerNpm, PATH: `${npmPath}:${user.PATH}` });
    const leaked = Object.keys(env).filter((k) => /^npm_/i.test(k) || ['INIT_CWD', 'NODE', 'COLOR'].includes(k));
    expect(leaked).toEqual([]);
  });

  it("keeps the user's own environment: HOME, proxies, locale, PATH", () => {
    const env = clean({ ...user, ...outerNpm, PATH: `${npmPath}:${user.PATH}` });
    expect(env).toEqual(user);
  });

  it("removes the outer npm's PATH entries and puts the given ones first, once", () => {
    const env = clean({ PATH: `${npmPath}:/opt/node24/bin:/usr/bin` }, { prependPath: ['/opt/node24/bin'] });
    expect(env.PATH).toBe('/opt/node24/bin:/usr/bin');
  });

  it('applies the explicit settings last, even npm_config ones', () => {
    const env = clean({ ...outerNpm, PATH: '/usr/bin' }, { set: { npm_config_nodedir: '/opt/node24' } });
    expect(env.npm_config_nodedir).toBe('/opt/node24');
    expect(env.npm_config_user_agent).toBeUndefined();
  });

  it('leaves the environment it was given unchanged', () => {
    const given = { ...outerNpm, ...user };
    const copy = { ...given };
    clean(given, { prependPath: ['/x'], set: { A: '1' } });
    expect(given).toEqual(copy);
  });
});
