/** The chains this deployment serves, for entry points that build services (the API server, scripts). */
export { loadEvmChains, type EvmChains } from '../chains/evm/clients';
