// swagger-ui-dist ships no types: the part of its bundle components/api/api-reference.tsx uses.
declare module "swagger-ui-dist/swagger-ui-es-bundle.js" {
  interface SwaggerUIOptions {
    domNode: HTMLElement;
    url: string;
    validatorUrl: string | null;
    deepLinking?: boolean;
    tryItOutEnabled?: boolean;
    defaultModelsExpandDepth?: number;
    docExpansion?: "list" | "full" | "none";
    filter?: boolean;
    [option: string]: unknown;
  }
  const SwaggerUIBundle: (options: SwaggerUIOptions) => unknown;
  export default SwaggerUIBundle;
}
