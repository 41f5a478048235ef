import { create, createFileRegistry, type DescFile, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  type DescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
} from '@bufbuild/protobuf/wkt';
import type { PackageDefinition } from '@grpc/proto-loader';

/**
 * Correct FileDescriptorProtos for server reflection. proto-loader's descriptors (protobufjs's descriptor
 * extension) give every file an empty dependency list and put the well-known types into a made-up
 * `google_protobuf.proto` (grpc/grpc-node#3034), so strict tooling (grpcurl, buf, protoc's loaders) fails with
 * "google.protobuf.Struct not found". Here the well-known types are the real files (`google/protobuf/struct.proto`
 * ..., as @bufbuild/protobuf ships them), each file's dependencies are worked out from the types it refers to,
 * and the whole set is checked by building a strict @bufbuild/protobuf registry from it: a set that would not
 * resolve fails at startup, not in a user's tool.
 */

const WELL_KNOWN: readonly DescFile[] = [
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
];

/** The encoded, corrected descriptors of every file in `definitions` (plus the well-known files they use). */
export function reflectionDescriptors(...definitions: PackageDefinition[]): Buffer[] {
  const files = new Map<string, FileDescriptorProto>();
  for (const definition of definitions) {
    for (const entry of Object.values(definition)) {
      const protos = (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos;
      for (const bytes of protos ?? []) {
        const file = fromBinary(FileDescriptorProtoSchema, bytes);
        // protobufjs's stand-in for the well-known types: the real files replace it below.
        if (file.package === 'google.protobuf') continue;
        if (!files.has(file.name)) files.set(file.name, file);
      }
    }
  }
  const owner = new Map<string, string>();
  for (const known of WELL_KNOWN) indexSymbols(known.proto, owner);
  for (const file of files.values()) indexSymbols(file, owner);

  const wellKnownUsed = new Set<string>();
  for (const file of files.values()) {
    const dependencies = new Set<string>();
    for (const ref of resolveReferences(file, owner)) {
      const name = owner.get(ref)!;
      if (name === file.name) continue;
      dependencies.add(name);
      if (!files.has(name)) wellKnownUsed.add(name);
    }
    file.dependency = [...dependencies].sort();
  }
  // Dependencies before the files that import them, as a FileDescriptorSet lists them.
  const all: FileDescriptorProto[] = WELL_KNOWN.filter((k) => wellKnownUsed.has(k.proto.name)).map(
    (k) => k.proto,
  );
  const placed = new Set(all.map((f) => f.name));
  const place = (file: FileDescriptorProto) => {
    if (placed.has(file.name)) return;
    placed.add(file.name);
    for (const dep of file.dependency) {
      const inner = files.get(dep);
      if (inner) place(inner);
    }
    all.push(file);
  };
  for (const file of files.values()) place(file);
  // Throws when a reference does not resolve: the check a strict client makes.
  createFileRegistry(create(FileDescriptorSetSchema, { file: all }));
  return all.map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file)));
}

/** The package definitions with their descriptors replaced by `descriptors`, for @grpc/reflection. */
export function withDescriptors(definition: PackageDefinition, descriptors: Buffer[]): PackageDefinition {
  const out: PackageDefinition = {};
  for (const [name, entry] of Object.entries(definition)) {
    // Messages and enums carry their file's descriptors; services do not.
    out[name] = (
      'fileDescriptorProtos' in entry ? { ...entry, fileDescriptorProtos: descriptors } : entry
    ) as PackageDefinition[string];
  }
  return out;
}

function indexSymbols(file: FileDescriptorProto, owner: Map<string, string>): void {
  const prefix = file.package ? `${file.package}.` : '';
  const messages = (list: DescriptorProto[], scope: string) => {
    for (const m of list) {
      owner.set(`${scope}${m.name}`, file.name);
      for (const e of m.enumType) owner.set(`${scope}${m.name}.${e.name}`, file.name);
      messages(m.nestedType, `${scope}${m.name}.`);
    }
  };
  messages(file.messageType, prefix);
  for (const e of file.enumType) owner.set(`${prefix}${e.name}`, file.name);
}

/**
 * Makes every type reference of a file fully qualified (`.mcplite.Tool`, as protoc writes them; protobufjs leaves
 * them relative) and fills in `json_name` as protoc does, and returns the referenced names (without the dot).
 * A name is looked up from the innermost scope outwards, as protoc resolves it.
 */
function resolveReferences(file: FileDescriptorProto, owner: Map<string, string>): string[] {
  const refs: string[] = [];
  const resolve = (ref: string, scope: string): string => {
    let found: string | undefined;
    if (ref.startsWith('.')) found = owner.has(ref.slice(1)) ? ref.slice(1) : undefined;
    else {
      for (let s = scope; found === undefined; s = s.slice(0, Math.max(0, s.lastIndexOf('.')))) {
        const candidate = s ? `${s}.${ref}` : ref;
        if (owner.has(candidate)) found = candidate;
        if (!s) break;
      }
    }
    if (found === undefined) throw new Error(`${file.name} refers to ${ref}, which no file defines`);
    refs.push(found);
    return `.${found}`;
  };
  const fields = (list: FieldDescriptorProto[], scope: string) => {
    for (const f of list) {
      if (f.typeName) f.typeName = resolve(f.typeName, scope);
      if (f.extendee) f.extendee = resolve(f.extendee, scope);
      if (!f.jsonName) f.jsonName = f.name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    }
  };
  const messages = (list: DescriptorProto[], scope: string) => {
    for (const m of list) {
      const inner = scope ? `${scope}.${m.name}` : m.name;
      fields([...m.field, ...m.extension], inner);
      messages(m.nestedType, inner);
    }
  };
  messages(file.messageType, file.package);
  fields(file.extension, file.package);
  for (const service of file.service) {
    for (const m of service.method) {
      m.inputType = resolve(m.inputType, file.package);
      m.outputType = resolve(m.outputType, file.package);
    }
  }
  return refs;
}
