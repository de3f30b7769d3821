/**
 * What the estimate and the actual cost both read from a document: the operation to run, its
 * fragments, the value of an argument (a literal, or a variable with its default), whether a selection
 * is skipped by `@skip` or `@include`, and the field definition a name resolves to on a type
 * (introspection's `__schema` and `__type` included). Each reading of a variable is noted on the
 * Reading, so that a price that depends on no variable can be cached for its document.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionNode,
  TypeMetaFieldDef,
  type ValueNode,
} from 'graphql';

/** Reading: one operation of a document, read with one request's variables. */
export class Reading {
  readonly schema: GraphQLSchema;
  readonly operation: OperationDefinitionNode;
  readonly root: GraphQLObjectType;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly #variables: Readonly<Record<string, unknown>>;
  readonly #defaults = new Map<string, ValueNode>();
  /** Set once a variable's value was read (the price then holds for these variables only). */
  usedVariables = false;

  constructor(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    root: GraphQLObjectType,
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ) {
    this.schema = schema;
    this.operation = operation;
    this.root = root;
    this.fragments = fragments;
    this.#variables = variables ?? {};
    for (const definition of operation.variableDefinitions ?? []) {
      if (definition.defaultValue !== undefined) this.#defaults.set(definition.variable.name.value, definition.defaultValue);
    }
  }

  /** value answers an argument's value as a plain value (undefined when unset). */
  value(node: ValueNode): unknown {
    if (node.kind === Kind.VARIABLE) {
      this.usedVariables = true;
      const name = node.name.value;
      if (Object.hasOwn(this.#variables, name)) return this.#variables[name];
      const fallback = this.#defaults.get(name);
      return fallback === undefined ? undefined : this.value(fallback);
    }
    if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return Number(node.value);
    if (node.kind === Kind.BOOLEAN) return node.value;
    if (node.kind === Kind.NULL) return null;
    return undefined;
  }

  /** skipped tells whether `@skip(if: true)` or `@include(if: false)` removes the selection. */
  skipped(node: SelectionNode): boolean {
    const directives = node.directives;
    if (directives === undefined || directives.length === 0) return false;
    for (const d of directives) {
      const name = d.name.value;
      if (name !== 'skip' && name !== 'include') continue;
      const condition = d.arguments?.find((a) => a.name.value === 'if');
      const value = condition === undefined ? undefined : this.value(condition.value);
      if (name === 'skip' && value === true) return true;
      if (name === 'include' && value === false) return true;
    }
    return false;
  }

  /** field answers the definition of `name` on `type` (introspection's meta fields on the root query type), or undefined. */
  field(type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
    if (name === '__schema' || name === '__type') return type === this.schema.getQueryType() ? (name === '__schema' ? SchemaMetaFieldDef : TypeMetaFieldDef) : undefined;
    // An object or interface type (a parent is never an input type): read without graphql-js's
    // predicates, slow outside production mode when they answer false.
    const fields = (type as { getFields?: () => Record<string, GraphQLField<unknown, unknown>> }).getFields;
    return fields === undefined ? undefined : fields.call(type)[name];
  }
}

/** read answers the Reading of the operation `operationName` selects in `document`, or undefined when there is none to run. */
export function read(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Reading | undefined {
  let operation: OperationDefinitionNode | undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations++;
      if (operationName == null ? operation === undefined : definition.name?.value === operationName) operation = definition;
    }
  }
  if (operation === undefined || (operationName == null && operations > 1)) return undefined;
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return root == null ? undefined : new Reading(schema, operation, root, fragments, variables);
}
