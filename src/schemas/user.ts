/** Schemas of GET /user. */
import Type from 'typebox';

export const UserResponse = Type.Object({
  success: Type.Literal(true),
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
});
