import { parseAbi } from 'viem';

/**
 * What Coffer calls and reads of USDC on an EVM chain: Circle's FiatTokenV2 interface (Base's USDC, and
 * Coffer's test USDC, which also reports a short balance as OpenZeppelin's custom error). The v,r,s
 * overload of transferWithAuthorization is the one every FiatTokenV2 has.
 */
export const USDC_ABI = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address account) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
]);
