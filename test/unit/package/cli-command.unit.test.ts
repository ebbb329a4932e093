import { describe, expect, it } from 'vitest';
import { cliCommand } from '../../../bin/package-info.js';

// The `next` hints of `serve` name this command; each case is one way people start the CLI.
describe('cliCommand: the quickest way to run the CLI again, from how this process started', () => {
  it('given the binary npm linked into a project, then it is npx cogitave', () => {
    expect(cliCommand('/home/ada/app/node_modules/.bin/cogitave', '/home/ada/app')).toBe(
      'npx cogitave',
    );
    expect(
      cliCommand('/home/ada/app/node_modules/cogitave-core/dist/bin/cogitave.js', '/home/ada'),
    ).toBe('npx cogitave');
  });

  it('given that binary but a working directory outside the project, then it is its path (npx would ask the registry)', () => {
    expect(cliCommand('/home/ada/app/node_modules/.bin/cogitave', '/tmp')).toBe(
      '/home/ada/app/node_modules/.bin/cogitave',
    );
    expect(
      cliCommand('/home/ada/app/node_modules/cogitave-core/dist/bin/cogitave.js', '/tmp'),
    ).toBe('node /home/ada/app/node_modules/cogitave-core/dist/bin/cogitave.js');
  });

  it('given a global install (a cogitave binary on the PATH), then it is cogitave', () => {
    expect(cliCommand('/usr/local/bin/cogitave', '/home/ada')).toBe('cogitave');
  });

  it('given the build of a checkout, then it is node and the path from where the person stands', () => {
    expect(cliCommand('/src/core/dist/bin/cogitave.js', '/src/core')).toBe(
      'node dist/bin/cogitave.js',
    );
    expect(cliCommand('/src/core/dist/bin/cogitave.js', '/elsewhere')).toBe(
      'node /src/core/dist/bin/cogitave.js',
    );
  });

  it('given the TypeScript sources (tsx), then it is npm run cogitave -- (the build, not tsx)', () => {
    expect(cliCommand('/src/core/bin/cogitave.ts', '/src/core')).toBe('npm run cogitave --');
  });

  it('given no script path (an embedded runtime), then it is the binary name', () => {
    expect(cliCommand(undefined, '/')).toBe('cogitave');
  });
});
