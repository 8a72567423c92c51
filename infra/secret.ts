export const adminToken = new sst.Secret("AdminToken");
export const signingKey = new sst.Secret("SigningKey");
