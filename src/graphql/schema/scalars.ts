import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import { builder } from '../builder.js';

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('SafeInt', SafeIntResolver);
