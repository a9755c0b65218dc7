import type { ResolvedServiceConfig } from './resolved-config.js';
import type { ServiceContext, ServiceModule } from './module.js';
import { CorridorCatalogue } from './corridors/catalogue.js';
import { mountCorridorRoutes } from './corridors/routes.js';

/**
 * The corridors the service settles (`GET /api/v1/corridors`): every ordered pair of chains with a token on both,
 * their notional limits and oracle. The catalogue exists before any module is set up (modules read it from the
 * context), its routes are mounted with the module.
 */
export class CorridorsModule implements ServiceModule {
  readonly name = 'corridors';
  readonly catalogue: CorridorCatalogue;

  constructor(config: Pick<ResolvedServiceConfig, 'chains' | 'corridors'>) {
    this.catalogue = new CorridorCatalogue(config.chains, config.corridors);
  }

  setup(context: ServiceContext): void {
    mountCorridorRoutes(context.routes(), context.openapi, this.catalogue);
  }
}
