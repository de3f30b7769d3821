// koa2 is the npm alias of Koa 2 used to run the contract against both majors; the Koa 3 type
// definitions describe the surface the tests touch.
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}
