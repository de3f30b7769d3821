export declare function GET(request: Request): Promise<Response>;
