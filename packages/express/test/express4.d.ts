// express4 is the npm alias of Express 4 used to run the contract against both majors; the Express 5
// type definitions describe the surface the tests touch.
declare module 'express4' {
  import express from 'express';
  export default express;
}
