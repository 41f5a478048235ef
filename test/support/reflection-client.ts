/**
 * A gRPC client that knows nothing but the server's address, as grpcurl works: it lists the services through
 * server reflection (grpc.reflection.v1), fetches the file that defines one and, by file name, every file that
 * file imports, loads them into a strict @bufbuild/protobuf registry (which refuses a set whose references do
 * not resolve, as grpcurl, buf and protoc's descriptor loaders do), and then calls methods with messages encoded
 * and decoded from that registry alone, from the protobuf JSON a grpcurl user would type.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createFileRegistry,
  type DescService,
  type FileRegistry,
  fromBinary,
  fromJson,
  type JsonValue,
  toBinary,
  toJson,
} from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Client, credentials, loadPackageDefinition, Metadata, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** What reflection told about a service: the strict registry built from its files, and the service. */
export interface Reflected {
  services: string[];
  /** The names of the files fetched, in the order they came. */
  files: string[];
  registry: FileRegistry;
  service: DescService;
}

/** Resolves `serviceName` purely through reflection into a strict registry; throws when the files do not resolve. */
export async function reflect(address: string, serviceName: string): Promise<Reflected> {
  const require = createRequire(import.meta.url);
  const root = join(dirname(require.resolve('@grpc/reflection')), '../proto');
  const definition = loadSync(join(root, 'grpc/reflection/v1/reflection.proto'), {
    keepCase: true,
    oneofs: true,
  });
  const pkg = loadPackageDefinition(definition) as any;
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, credentials.createInsecure());
  try {
    const ask = async (request: Record<string, unknown>): Promise<any> => {
      const call = client.ServerReflectionInfo();
      const replies: any[] = [];
      call.on('data', (r: any) => replies.push(r));
      const ended = once(call, 'end');
      call.write(request);
      call.end();
      await ended;
      const reply = replies[0];
      if (reply?.error_response) throw new Error(`reflection: ${reply.error_response.error_message}`);
      return reply;
    };
    const services = (await ask({ list_services: '*' })).list_services_response.service.map(
      (s: { name: string }) => s.name,
    );
    const protos = new Map<string, ReturnType<typeof decode>>();
    const decode = (bytes: Uint8Array) => fromBinary(FileDescriptorProtoSchema, bytes);
    const take = (reply: any) => {
      for (const bytes of reply.file_descriptor_response.file_descriptor_proto as Uint8Array[]) {
        const file = decode(bytes);
        if (!protos.has(file.name)) protos.set(file.name, file);
      }
    };
    take(await ask({ file_containing_symbol: serviceName }));
    // Fetch every import by its file name, as grpcurl does when a reply leaves one out.
    for (let missing = missingImports(protos); missing.length > 0; missing = missingImports(protos)) {
      for (const name of missing) take(await ask({ file_by_filename: name }));
    }
    // The first file of a file_containing_symbol reply is the one that defines the symbol; its imports are
    // resolved by name, and one that is missing or lacks a referenced type makes this throw.
    const [defining] = protos.values();
    const registry = createFileRegistry(defining!, (name) => protos.get(name));
    const service = registry.getService(serviceName);
    if (!service) throw new Error(`${serviceName} is not in the reflected files`);
    return { services, files: [...protos.keys()], registry, service };
  } finally {
    client.close();
  }
}

function missingImports(protos: Map<string, { dependency: string[] }>): string[] {
  const missing = new Set<string>();
  for (const file of protos.values())
    for (const dep of file.dependency) if (!protos.has(dep)) missing.add(dep);
  return [...missing];
}

/** Calls a unary method of a reflected service with a protobuf-JSON request; resolves with the JSON reply. */
export function callJson(
  address: string,
  reflected: Reflected,
  method: string,
  request: JsonValue,
): Promise<{ reply?: JsonValue; error?: ServiceError }> {
  const desc = reflected.service.methods.find((m) => m.name === method);
  if (!desc) throw new Error(`no method ${method}`);
  const options = { registry: reflected.registry };
  const message = fromJson(desc.input, request, options);
  const client = new Client(address, credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/${reflected.service.typeName}/${method}`,
      (m: typeof message) => Buffer.from(toBinary(desc.input, m)),
      (bytes: Buffer) => fromBinary(desc.output, bytes),
      message,
      new Metadata(),
      {},
      (error, reply) => {
        client.close();
        resolve(error ? { error } : { reply: toJson(desc.output, reply!, options) });
      },
    );
  });
}
