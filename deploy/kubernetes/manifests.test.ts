/**
 * The Kubernetes manifests, checked without a cluster (issue 22, item 5): every overlay renders
 * with `kubectl kustomize`, every object validates against the Kubernetes schemas
 * (kubernetes-models, offline), and every container has resource requests and limits, runs as
 * non-root without privilege escalation, and (in what runs for good) has readiness and liveness
 * probes on the paths the processes serve.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MEDIA_HEALTH_PATHS } from '@voice/protocol';
import { DaemonSet, Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '../..');
const RENDERED = ['overlays/production', 'overlays/small', 'loadtest'];

/** Every kind the manifests may hold, by apiVersion and kind, with its schema. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/DaemonSet': DaemonSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
};
const WORKLOADS = new Set(['Deployment', 'DaemonSet', 'StatefulSet', 'Job']);
/** Those that run for good, and so need probes (a Job's container ends by itself). */
const SERVING = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; allowPrivilegeEscalation?: boolean };
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
}
interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  initContainers?: Container[];
}

function render(dir: string): K8sObject[] {
  let text: string;
  try {
    text = execFileSync('kubectl', ['kustomize', path.join(HERE, dir)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('kubectl is not installed: apt-get install -y kubernetes-client (1.20 is enough)');
    }
    throw error;
  }
  return parseAllDocuments(text).map((document) => document.toJS() as K8sObject);
}

function podSpecOf(object: K8sObject): PodSpec {
  const template = object.spec?.template as { spec: PodSpec };
  return template.spec;
}

const rendered = new Map(RENDERED.map((dir) => [dir, render(dir)]));
const all = [...rendered.entries()].flatMap(([dir, objects]) => objects.map((object) => ({ dir, object })));
const workloads = all.filter(({ object }) => WORKLOADS.has(object.kind));
const containersOf = (object: K8sObject) => {
  const spec = podSpecOf(object);
  return [...spec.containers, ...(spec.initContainers ?? [])];
};

describe('deploy/kubernetes', () => {
  it('renders every overlay into the objects a deployment needs', () => {
    const kinds = (dir: string) =>
      (rendered.get(dir) ?? []).map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(kinds('overlays/production')).toEqual([
      'ConfigMap/voice-config',
      'DaemonSet/voice-media',
      'DaemonSet/voice-turn',
      'Deployment/voice-api',
      'HorizontalPodAutoscaler/voice-api',
      'Ingress/voice-api',
      'Job/voice-migrate',
      'Namespace/voice',
      'PersistentVolumeClaim/voice-data',
      'PodDisruptionBudget/voice-api',
      'Service/voice-api',
    ]);
    expect(kinds('overlays/small')).toEqual(
      kinds('overlays/production').filter((k) => k !== 'Namespace/voice'),
    );
    expect(kinds('loadtest')).toEqual(['Job/voice-loadtest']);
    for (const object of [
      ...(rendered.get('overlays/production') ?? []),
      ...(rendered.get('overlays/small') ?? []),
    ]) {
      if (object.kind !== 'Namespace') expect(object.metadata.namespace, object.metadata.name).toBe('voice');
    }
  });

  it('validates every object against the Kubernetes schemas', () => {
    for (const { dir, object } of all) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `${dir}: ${object.apiVersion} ${object.kind} has no schema here`).toBeDefined();
      expect(
        () => new (Model as NonNullable<typeof Model>)(object as never).validate(),
        `${dir}: ${object.kind}/${object.metadata.name}`,
      ).not.toThrow();
    }
  });

  it('finds a broken object broken (the validation is not a formality)', () => {
    const api = rendered.get('overlays/production')?.find((o) => o.kind === 'Deployment') as K8sObject;
    const broken = structuredClone(api) as K8sObject & { spec: { replicas: unknown } };
    broken.spec.replicas = 'three';
    expect(() => new Deployment(broken as never).validate()).toThrow(/replicas/);
    const noImage = structuredClone(api);
    delete (podSpecOf(noImage).containers[0] as Partial<Container>).name;
    expect(() => new Deployment(noImage as never).validate()).toThrow(/name/);
  });

  it('gives every container requests and limits, and runs it as non-root without privilege escalation', () => {
    for (const { dir, object } of workloads) {
      const pod = podSpecOf(object);
      for (const container of containersOf(object)) {
        const where = `${dir}: ${object.kind}/${object.metadata.name} ${container.name}`;
        for (const part of ['requests', 'limits'] as const) {
          expect(Object.keys(container.resources?.[part] ?? {}).sort(), `${where} ${part}`).toEqual([
            'cpu',
            'memory',
          ]);
        }
        const nonRoot = container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
        const user = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
        expect(nonRoot, where).toBe(true);
        expect(user, where).toBeGreaterThan(0);
        expect(container.securityContext?.allowPrivilegeEscalation, where).toBe(false);
      }
    }
  });

  it('probes what runs for good, on the paths the processes answer', () => {
    for (const { dir, object } of workloads.filter(({ object }) => SERVING.has(object.kind))) {
      for (const container of containersOf(object)) {
        const where = `${dir}: ${object.kind}/${object.metadata.name} ${container.name}`;
        expect(container.readinessProbe, where).toBeDefined();
        expect(container.livenessProbe, where).toBeDefined();
      }
    }
    const probes = (name: string) => {
      const object = rendered
        .get('overlays/production')
        ?.find((o) => WORKLOADS.has(o.kind) && o.metadata.name === name) as K8sObject;
      const [container] = podSpecOf(object).containers as [Container];
      return [container.readinessProbe?.httpGet?.path, container.livenessProbe?.httpGet?.path];
    };
    expect(probes('voice-api')).toEqual(['/api/health/ready', '/api/health/live']);
    expect(probes('voice-media')).toEqual([MEDIA_HEALTH_PATHS.ready, MEDIA_HEALTH_PATHS.live]);
  });

  it('runs files that exist, the release image in production, and names only the secrets and maps it documents', () => {
    const base = rendered.get('overlays/production') ?? [];
    for (const object of base.filter((o) => WORKLOADS.has(o.kind))) {
      for (const container of containersOf(object)) {
        const script = container.command?.find((part) => part.endsWith('.ts'));
        if (script) expect(existsSync(path.join(REPO_ROOT, script)), script).toBe(true);
        if (container.image.includes('voice-platform')) {
          expect(container.image).toBe('registry.example.org/voice-platform:1.0.0');
        }
      }
    }
    const made = new Set(base.map((o) => `${o.kind}/${o.metadata.name}`));
    for (const object of base.filter((o) => WORKLOADS.has(o.kind))) {
      for (const container of containersOf(object)) {
        for (const from of container.envFrom ?? []) {
          if (from.configMapRef) expect(made.has(`ConfigMap/${from.configMapRef.name}`)).toBe(true);
          // Made by the operator, as base/kustomization.yaml says.
          if (from.secretRef) expect(from.secretRef.name).toBe('voice-secrets');
        }
      }
    }
  });
});
